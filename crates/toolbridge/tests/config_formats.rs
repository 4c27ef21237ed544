//! Config files in every supported format load to the same servers;
//! placeholders expand; mistakes give errors that say what to fix; masked
//! renderings never contain a secret.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    time::Duration,
};

use toolbridge::config::{
    AuditConfig, ConfigError, ConfigFormat, HubConfig, RestartPolicy, ServerConfig, TransportConfig,
};
use toolbridge::mcp::McpServerStdioParams;

const GITHUB_TOKEN: &str = "ghp_canary0123456789SECRET";
const DOCS_TOKEN: &str = "docs-canary-token-SECRET";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/config")
        .join(name)
}

/// The variables of a user who has both tokens set (for VS Code, as the
/// inputs' variables too) and no `PROJECT_DIR`.
fn user_env(name: &str) -> Option<String> {
    match name {
        "GITHUB_TOKEN" | "TOOLBRIDGE_INPUT_GITHUB_TOKEN" => Some(GITHUB_TOKEN.to_owned()),
        "DOCS_TOKEN" => Some(DOCS_TOKEN.to_owned()),
        _ => None,
    }
}

fn load(name: &str) -> HubConfig {
    match HubConfig::load_with(fixture(name), &user_env) {
        Ok(config) => config,
        Err(e) => panic!("{name}: {e}"),
    }
}

fn load_err(name: &str, text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> ConfigError {
    let path = Path::new(name);
    let format = match ConfigFormat::detect(path, text) {
        Ok(format) => format,
        Err(e) => return e,
    };
    match HubConfig::parse(text, format, path, lookup) {
        Ok(config) => panic!("{name} loaded but should not have: {config:?}"),
        Err(e) => e,
    }
}

fn parse(name: &str, text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> HubConfig {
    let path = Path::new(name);
    let loaded = ConfigFormat::detect(path, text)
        .and_then(|format| HubConfig::parse(text, format, path, lookup));
    match loaded {
        Ok(config) => config,
        Err(e) => panic!("{name}: {e}"),
    }
}

fn no_vars(_: &str) -> Option<String> {
    None
}

/// The three servers every fixture describes, in file order.
fn expected_servers() -> Vec<ServerConfig> {
    let github = ServerConfig::new(
        "github",
        TransportConfig::Stdio(McpServerStdioParams {
            command: "npx".into(),
            args: vec!["-y".into(), "@modelcontextprotocol/server-github".into()],
            env: BTreeMap::from([(
                "GITHUB_PERSONAL_ACCESS_TOKEN".to_owned(),
                GITHUB_TOKEN.to_owned(),
            )]),
            ..Default::default()
        }),
    );
    let filesystem = ServerConfig::new(
        "filesystem",
        TransportConfig::Stdio(McpServerStdioParams {
            command: "npx".into(),
            args: vec![
                "-y".into(),
                "@modelcontextprotocol/server-filesystem".into(),
                "/srv/project".into(),
            ],
            ..Default::default()
        }),
    );
    let docs = ServerConfig::new(
        "docs",
        TransportConfig::Http {
            url: "https://docs.example.com/mcp".into(),
            headers: BTreeMap::from([("Authorization".to_owned(), format!("Bearer {DOCS_TOKEN}"))]),
        },
    );
    vec![github, filesystem, docs]
}

#[test]
fn every_format_loads_the_same_three_servers_in_file_order() {
    for name in [
        "claude_desktop_config.json",
        "claude_code.mcp.json",
        "vscode_mcp.json",
    ] {
        assert_eq!(load(name).servers, expected_servers(), "{name}");
    }

    // The TOML says more; with its extras reset it is the same.
    let mut toml = load("toolbridge.toml").servers;
    for server in &mut toml {
        let transport = server.transport.clone();
        *server = ServerConfig::new(server.name.clone(), transport);
    }
    assert_eq!(toml, expected_servers());
}

#[test]
fn format_is_detected_from_extension_and_top_level_key() {
    let detect = |name: &str| {
        let path = fixture(name);
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        ConfigFormat::detect(&path, &text).ok()
    };
    assert_eq!(
        detect("claude_desktop_config.json"),
        Some(ConfigFormat::McpServers)
    );
    assert_eq!(
        detect("claude_code.mcp.json"),
        Some(ConfigFormat::McpServers)
    );
    assert_eq!(detect("vscode_mcp.json"), Some(ConfigFormat::VsCode));
    assert_eq!(detect("toolbridge.toml"), Some(ConfigFormat::Toolbridge));
}

#[test]
fn toolbridge_toml_carries_everything_the_hub_supports() {
    let config = load("toolbridge.toml");
    assert_eq!(
        config.command_allowlist,
        Some(vec![
            "npx".to_owned(),
            "uvx".to_owned(),
            "/opt/mcp/bin/docs-server".to_owned()
        ])
    );
    assert_eq!(
        config.audit,
        Some(AuditConfig::Jsonl {
            path: "/var/log/toolbridge/audit.jsonl".into()
        })
    );

    let github = config.server("github").expect("github is configured");
    assert_eq!(github.prefix.as_deref(), Some("gh"));
    assert_eq!(github.startup_timeout, Some(Duration::from_secs(120)));
    assert_eq!(github.options().call_timeout, Duration::from_millis(12_500));
    assert_eq!(github.max_concurrent_calls, Some(4));
    assert_eq!(
        github.restart,
        RestartPolicy {
            base: Duration::from_millis(250),
            cap: Duration::from_secs(10),
            max_attempts: 3
        }
    );
    let filter = github.tool_filter();
    assert!(filter.allowed_tool_names.is_some_and(|names| {
        names.contains("search_repositories") && names.contains("get_file_contents")
    }));
    assert!(
        filter
            .blocked_tool_names
            .is_some_and(|names| names.contains("delete_repository"))
    );

    let filesystem = config.server("filesystem").expect("filesystem");
    assert_eq!(filesystem.restart, RestartPolicy::default());
    assert_eq!(filesystem.transport.kind(), "stdio");

    let docs = config.server("docs").expect("docs");
    assert!(!docs.enabled);
    let enabled: Vec<_> = config.enabled_servers().map(|s| s.name.as_str()).collect();
    assert_eq!(enabled, ["github", "filesystem"]);
}

#[test]
fn disabled_entries_and_transport_spellings_of_json_files_are_understood() {
    let text = r#"{"mcpServers": {
        "old": {"command": "uvx", "args": ["mcp-server-time"], "disabled": true},
        "legacy": {"type": "sse", "url": "https://legacy.example.com/sse"},
        "remote": {"url": "https://remote.example.com/mcp"}
    }}"#;
    let config = parse(".mcp.json", text, &no_vars);
    assert!(!config.servers[0].enabled);
    assert!(matches!(
        config.servers[1].transport,
        TransportConfig::Sse { .. }
    ));
    assert_eq!(config.servers[2].transport.kind(), "http");
}

#[test]
fn variables_expand_in_command_args_env_cwd_url_and_headers() {
    let text = r#"
        [servers.local]
        command = "${BIN_DIR}/server"
        args = ["--root", "${ROOT:-/data}", "--mode=${MODE:-fast}", "$${LITERAL}"]
        env = { LEVEL = "${LEVEL:-info}", PRICE = "5$" }
        cwd = "${HOME}/work"

        [servers.remote]
        url = "https://${HOST}/mcp"
        headers = { "X-Api-Key" = "${API_KEY}" }
    "#;
    let vars = |name: &str| match name {
        "BIN_DIR" => Some("/opt/bin".to_owned()),
        "MODE" => Some("slow".to_owned()),
        "HOME" => Some("/home/me".to_owned()),
        "HOST" => Some("mcp.example.com".to_owned()),
        "API_KEY" => Some("k-123".to_owned()),
        _ => None,
    };
    let config = parse("toolbridge.toml", text, &vars);
    let TransportConfig::Stdio(local) = &config.servers[0].transport else {
        panic!("local should be stdio");
    };
    assert_eq!(local.command, "/opt/bin/server");
    assert_eq!(local.args, ["--root", "/data", "--mode=slow", "${LITERAL}"]);
    assert_eq!(local.env["LEVEL"], "info");
    assert_eq!(local.env["PRICE"], "5$");
    assert_eq!(local.cwd.as_deref(), Some(Path::new("/home/me/work")));
    let TransportConfig::Http { url, headers } = &config.servers[1].transport else {
        panic!("remote should be http");
    };
    assert_eq!(url, "https://mcp.example.com/mcp");
    assert_eq!(headers["X-Api-Key"], "k-123");
}

#[test]
fn vscode_workspace_folder_is_the_folder_holding_dot_vscode() {
    let text = r#"{"servers": {"fs": {
        "type": "stdio", "command": "npx",
        "args": ["@modelcontextprotocol/server-filesystem", "${workspaceFolder}"]
    }}}"#;
    let config = parse("/home/me/proj/.vscode/mcp.json", text, &no_vars);
    let TransportConfig::Stdio(fs) = &config.servers[0].transport else {
        panic!("fs should be stdio");
    };
    assert_eq!(fs.args[1], "/home/me/proj");
}

#[test]
fn missing_variable_names_the_server_field_and_variable() {
    let only_docs = |name: &str| (name == "DOCS_TOKEN").then(|| DOCS_TOKEN.to_owned());
    let err = HubConfig::load_with(fixture("claude_code.mcp.json"), &only_docs)
        .expect_err("GITHUB_TOKEN is unset");
    assert!(matches!(
        &err,
        ConfigError::MissingVariable { server, variable, .. }
            if server == "github" && variable == "GITHUB_TOKEN"
    ));
    let message = err.to_string();
    assert!(
        message.ends_with(
            "server 'github': env GITHUB_PERSONAL_ACCESS_TOKEN uses ${GITHUB_TOKEN}, which is \
             not set; set it or give a default with ${GITHUB_TOKEN:-…}"
        ),
        "{message}"
    );
    assert!(message.contains("claude_code.mcp.json"), "{message}");
}

#[test]
fn missing_vscode_input_names_the_input_and_its_variable() {
    let err = HubConfig::load_with(fixture("vscode_mcp.json"), &no_vars)
        .expect_err("no input variable is set");
    assert!(matches!(
        &err,
        ConfigError::MissingInput { server, input, env_var, .. }
            if server == "github" && input == "github-token"
                && env_var == "TOOLBRIDGE_INPUT_GITHUB_TOKEN"
    ));
    assert!(
        err.to_string()
            .contains("set the environment variable TOOLBRIDGE_INPUT_GITHUB_TOKEN"),
        "{err}"
    );
}

#[test]
fn masked_renderings_never_contain_secret_values() {
    for name in [
        "claude_desktop_config.json",
        "claude_code.mcp.json",
        "vscode_mcp.json",
        "toolbridge.toml",
    ] {
        for server in load(name).servers {
            let rendered = [server.describe_masked(), format!("{server:?}")];
            for text in rendered {
                assert!(!text.contains(GITHUB_TOKEN), "{name}: {text}");
                assert!(!text.contains(DOCS_TOKEN), "{name}: {text}");
                assert!(!text.contains("canary"), "{name}: {text}");
            }
        }
    }
    let config = load("toolbridge.toml");
    let github = config.server("github").expect("github").describe_masked();
    assert!(github.contains("server 'github' (stdio)"), "{github}");
    assert!(
        github.contains("GITHUB_PERSONAL_ACCESS_TOKEN=****CRET"),
        "{github}"
    );
    assert!(github.contains("prefix: gh"), "{github}");
    assert!(github.contains("startup timeout: 120s"), "{github}");
    assert!(github.contains("call timeout: 12.5s"), "{github}");
    let docs = config.server("docs").expect("docs").describe_masked();
    assert!(docs.contains("url: https://docs.example.com/mcp"), "{docs}");
    assert!(docs.contains("Authorization: ****CRET"), "{docs}");
    assert!(docs.contains("enabled: no"), "{docs}");
}

#[test]
fn bad_json_reports_line_and_column() {
    let err = HubConfig::load_with(fixture("bad_syntax.json"), &no_vars).expect_err("bad JSON");
    let ConfigError::Syntax {
        format,
        line,
        column,
        ..
    } = &err
    else {
        panic!("expected a syntax error, got {err}");
    };
    assert_eq!((*format, *line, *column), ("JSON", 5, 7));
    assert!(
        err.to_string()
            .contains("bad_syntax.json:5:7: invalid JSON"),
        "{err}"
    );
}

#[test]
fn duplicate_server_names_are_an_error() {
    let err = HubConfig::load_with(fixture("duplicate_names.json"), &no_vars)
        .expect_err("github is defined twice");
    assert!(
        matches!(&err, ConfigError::DuplicateServer { server, .. } if server == "github"),
        "{err}"
    );
    assert!(err.to_string().contains("defined twice"), "{err}");
}

#[test]
fn unknown_transport_type_is_an_error_naming_it() {
    let text = r#"{"servers": {"ws": {"type": "websocket", "url": "wss://x/mcp"}}}"#;
    let err = load_err("mcp.json", text, &no_vars);
    assert!(
        matches!(&err, ConfigError::UnknownTransport { server, kind, .. }
            if server == "ws" && kind == "websocket"),
        "{err}"
    );
    assert!(err.to_string().contains("use stdio, http"), "{err}");
}

#[test]
fn a_server_with_neither_command_nor_url_is_an_error() {
    let text = r#"{"mcpServers": {"empty": {"args": ["x"]}}}"#;
    let err = load_err(".mcp.json", text, &no_vars);
    assert!(
        matches!(&err, ConfigError::MissingEndpoint { server, .. } if server == "empty"),
        "{err}"
    );
    let text = r#"{"mcpServers": {"half": {"type": "http"}}}"#;
    let err = load_err(".mcp.json", text, &no_vars);
    assert!(
        err.to_string().contains("server 'half' has no `url`"),
        "{err}"
    );
}

#[test]
fn json_without_a_known_top_level_key_is_an_unknown_format() {
    let err = load_err("settings.json", r#"{"editor.fontSize": 14}"#, &no_vars);
    assert!(matches!(err, ConfigError::UnknownFormat { .. }), "{err}");
    assert!(err.to_string().contains("`mcpServers`"), "{err}");
}

#[test]
fn unreadable_file_is_a_read_error() {
    let err =
        HubConfig::load_with(fixture("does_not_exist.json"), &no_vars).expect_err("no such file");
    assert!(matches!(err, ConfigError::Read { .. }), "{err}");
}

#[test]
fn toml_typos_and_bad_values_are_errors() {
    let typo = "[servers.a]\ncommand = \"npx\"\nstartup_timeout = 30\n";
    let err = load_err("toolbridge.toml", typo, &no_vars);
    assert!(
        matches!(
            &err,
            ConfigError::Syntax {
                format: "TOML",
                line: 3,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("startup_timeout"), "{err}");

    let zero = "[servers.a]\ncommand = \"npx\"\nmax_concurrent_calls = 0\n";
    let err = load_err("toolbridge.toml", zero, &no_vars);
    assert!(
        matches!(&err, ConfigError::InvalidServer { server, .. } if server == "a"),
        "{err}"
    );

    let negative = "[servers.a]\ncommand = \"npx\"\ncall_timeout_secs = -1\n";
    let err = load_err("toolbridge.toml", negative, &no_vars);
    assert!(err.to_string().contains("call_timeout_secs"), "{err}");

    let both = "[servers.a]\ncommand = \"npx\"\nurl = \"http://x/mcp\"\n";
    let err = load_err("toolbridge.toml", both, &no_vars);
    assert!(
        err.to_string().contains("`command` and `url` are both set"),
        "{err}"
    );

    let dup = "[servers.a]\ncommand = \"npx\"\n[servers.a]\ncommand = \"uvx\"\n";
    let err = load_err("toolbridge.toml", dup, &no_vars);
    assert!(matches!(&err, ConfigError::Syntax { line: 3, .. }), "{err}");
}

#[test]
fn parse_errors_do_not_echo_secret_values() {
    let json = r#"{"mcpServers": {"gh": {"command": "npx", "env": "GITHUB_TOKEN=ghp_leak123"}}}"#;
    let err = load_err(".mcp.json", json, &no_vars);
    assert!(matches!(err, ConfigError::Syntax { .. }), "{err}");
    assert!(!err.to_string().contains("ghp_leak123"), "{err}");

    let toml = "[servers.gh]\ncommand = \"npx\"\nenv = { TOKEN = \"ghp_leak123\" \n";
    let err = load_err("toolbridge.toml", toml, &no_vars);
    assert!(!err.to_string().contains("ghp_leak123"), "{err}");
}

#[test]
fn a_relative_audit_path_is_relative_to_the_config_file() {
    let dir = std::env::temp_dir().join(format!("toolbridge-audit-rel-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let path = dir.join("sub/toolbridge.toml");
    std::fs::write(
        &path,
        "audit = { sink = \"jsonl\", path = \"logs/audit.jsonl\" }\n\n[servers.one]\ncommand = \"npx\"\n",
    )
    .unwrap();
    let config = toolbridge::config::HubConfig::load_with(&path, &|_| None).unwrap();
    match config.audit {
        Some(toolbridge::config::AuditConfig::Jsonl { path: audit }) => {
            assert_eq!(audit, dir.join("sub/logs/audit.jsonl"));
        }
        other => panic!("{other:?}"),
    }
    let _ = std::fs::remove_dir_all(dir);
}
