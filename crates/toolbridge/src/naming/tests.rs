//! Tests of the exposed-name table.
use super::*;

fn is_valid_exposed(name: &str) -> bool {
    (1..=MAX_EXPOSED_NAME_LEN).contains(&name.len()) && name.chars().all(is_allowed)
}

/// Asserts the table-wide invariants: valid, unique, round-tripping.
fn assert_table_invariants(names: &ExposedNames) {
    let mut seen = HashSet::new();
    for row in names {
        assert!(
            is_valid_exposed(row.exposed()),
            "invalid: {:?}",
            row.exposed()
        );
        assert!(seen.insert(row.exposed()), "duplicate: {:?}", row.exposed());
        assert_eq!(
            names.resolve(row.exposed()),
            Some((row.server(), row.tool()))
        );
        assert_eq!(
            names.exposed_for(row.server(), row.tool()),
            Some(row.exposed())
        );
    }
}

fn mapping(names: &ExposedNames) -> Vec<(String, String, String)> {
    names
        .iter()
        .map(|r| {
            (
                r.server().to_owned(),
                r.tool().to_owned(),
                r.exposed().to_owned(),
            )
        })
        .collect()
}

#[test]
fn sanitize_keeps_letters_digits_underscore_and_dash() {
    assert_eq!(sanitize("Read_File-2"), "Read_File-2");
    assert_eq!(sanitize(""), "");
}

#[test]
fn sanitize_replaces_dots_slashes_spaces_and_unicode_one_for_one() {
    assert_eq!(sanitize("a.b"), "a_b");
    assert_eq!(sanitize("fs/read file"), "fs_read_file");
    assert_eq!(sanitize("café"), "caf_");
    assert_eq!(sanitize("日本語"), "___");
    assert_eq!(sanitize("a..b"), "a__b", "runs are not collapsed");
    assert_eq!(sanitize("emoji🦀:x"), "emoji__x");
}

#[test]
fn namespaced_is_the_default_style_and_reads_mcp_server_tool() {
    assert_eq!(NameStyle::default(), NameStyle::Namespaced);
    let names = ExposedNames::build([NameRequest::new("filesystem", "read_file")]);
    assert_eq!(
        names.exposed_for("filesystem", "read_file"),
        Some("mcp_filesystem_read_file")
    );
    assert_eq!(
        names.resolve("mcp_filesystem_read_file"),
        Some(("filesystem", "read_file"))
    );
}

#[test]
fn prefixed_style_defaults_the_prefix_to_the_server_name() {
    let names =
        ExposedNames::build([NameRequest::new("fs", "read_file").with_style(NameStyle::Prefixed)]);
    assert_eq!(names.exposed_for("fs", "read_file"), Some("fs__read_file"));
    assert_eq!(names.resolve("fs__read_file"), Some(("fs", "read_file")));
}

#[test]
fn prefixed_style_uses_the_given_prefix_sanitized() {
    let names = ExposedNames::build([
        NameRequest::new("filesystem", "read_file").with_prefix("fs"),
        NameRequest::new("my.git", "log").with_prefix("my.git"),
    ]);
    assert_eq!(
        names.exposed_for("filesystem", "read_file"),
        Some("fs__read_file")
    );
    assert_eq!(names.exposed_for("my.git", "log"), Some("my_git__log"));
}

#[test]
fn namespaced_style_ignores_a_prefix() {
    let request = NameRequest {
        prefix: Some("ignored".to_owned()),
        ..NameRequest::new("fs", "read")
    };
    assert_eq!(request.natural_name(), "mcp_fs_read");
}

#[test]
fn server_a_b_tool_c_and_server_a_tool_b_c_are_not_confused() {
    let names = ExposedNames::build([NameRequest::new("a_b", "c"), NameRequest::new("a", "b_c")]);
    assert_table_invariants(&names);
    assert_eq!(
        names.resolve("mcp_a_b_c"),
        None,
        "the ambiguous bare name is not exposed"
    );
    let ab_c = names.exposed_for("a_b", "c").expect("a_b/c is named");
    let a_bc = names.exposed_for("a", "b_c").expect("a/b_c is named");
    assert_ne!(ab_c, a_bc);
    for name in [ab_c, a_bc] {
        assert!(name.starts_with("mcp_a_b_c_"), "{name}");
        assert_eq!(name.len(), "mcp_a_b_c_".len() + HASH_LEN);
    }
    assert_eq!(names.resolve(ab_c), Some(("a_b", "c")));
    assert_eq!(names.resolve(a_bc), Some(("a", "b_c")));
    assert!(names.iter().all(ExposedName::hashed));
}

#[test]
fn tools_that_sanitize_alike_on_one_server_both_stay_callable() {
    let names = ExposedNames::build([
        NameRequest::new("s", "a.b"),
        NameRequest::new("s", "a_b"),
        NameRequest::new("s", "a/b"),
    ]);
    assert_table_invariants(&names);
    assert_eq!(names.len(), 3);
    assert_eq!(names.resolve("mcp_s_a_b"), None);
    for tool in ["a.b", "a_b", "a/b"] {
        let exposed = names.exposed_for("s", tool).expect("named");
        assert!(exposed.starts_with("mcp_s_a_b_"), "{exposed}");
        assert_eq!(names.resolve(exposed), Some(("s", tool)));
    }
}

#[test]
fn a_collision_leaves_unrelated_names_bare() {
    let names = ExposedNames::build([
        NameRequest::new("s", "a.b"),
        NameRequest::new("s", "a_b"),
        NameRequest::new("s", "other"),
    ]);
    assert_eq!(names.exposed_for("s", "other"), Some("mcp_s_other"));
}

#[test]
fn the_same_tool_on_two_servers_is_callable_on_both() {
    let names = ExposedNames::build([
        NameRequest::new("github", "search"),
        NameRequest::new("gitlab", "search"),
        NameRequest::new("one", "search").with_style(NameStyle::Prefixed),
        NameRequest::new("two", "search").with_style(NameStyle::Prefixed),
    ]);
    assert_table_invariants(&names);
    assert_eq!(
        names.resolve("mcp_github_search"),
        Some(("github", "search"))
    );
    assert_eq!(
        names.resolve("mcp_gitlab_search"),
        Some(("gitlab", "search"))
    );
    assert_eq!(names.resolve("one__search"), Some(("one", "search")));
    assert_eq!(names.resolve("two__search"), Some(("two", "search")));
    assert!(names.iter().all(|row| !row.hashed()));
}

#[test]
fn a_100_char_tool_name_is_cut_to_64_with_a_hash_suffix() {
    let tool = "t".repeat(100);
    let names = ExposedNames::build([NameRequest::new("srv", tool.as_str())]);
    assert_table_invariants(&names);
    let exposed = names.exposed_for("srv", &tool).expect("named");
    assert_eq!(exposed.len(), MAX_EXPOSED_NAME_LEN);
    let (base, suffix) = exposed.split_at(MAX_EXPOSED_NAME_LEN - HASH_LEN - 1);
    assert!(format!("mcp_srv_{tool}").starts_with(base));
    assert_eq!(suffix, format!("_{}", short_hash("srv", &tool, 0)));
    assert!(names.iter().all(ExposedName::hashed));
}

#[test]
fn a_long_name_is_stable_across_builds_and_input_orders() {
    let tool = "z".repeat(100);
    let build = |extra_first: bool| {
        let long = NameRequest::new("srv", tool.as_str());
        let other = NameRequest::new("aaa", "first");
        let list = if extra_first {
            vec![other, long]
        } else {
            vec![long]
        };
        ExposedNames::build(list)
            .exposed_for("srv", &tool)
            .map(str::to_owned)
    };
    let once = build(false);
    assert!(once.is_some());
    assert_eq!(once, build(false));
    assert_eq!(once, build(true));
}

#[test]
fn long_names_sharing_their_first_57_chars_stay_distinct() {
    let tool_a = format!("{}_alpha", "x".repeat(80));
    let tool_b = format!("{}_beta", "x".repeat(80));
    let names = ExposedNames::build([
        NameRequest::new("srv", tool_a.as_str()),
        NameRequest::new("srv", tool_b.as_str()),
    ]);
    assert_table_invariants(&names);
    assert_eq!(names.len(), 2);
}

#[test]
fn a_name_of_exactly_64_chars_is_untouched_and_65_is_hashed() {
    // "mcp_s_" is 6 characters.
    let tool_64 = "t".repeat(MAX_EXPOSED_NAME_LEN - 6);
    let tool_65 = "u".repeat(MAX_EXPOSED_NAME_LEN - 5);
    let names = ExposedNames::build([
        NameRequest::new("s", tool_64.as_str()),
        NameRequest::new("s", tool_65.as_str()),
    ]);
    assert_table_invariants(&names);
    let exact = format!("mcp_s_{tool_64}");
    assert_eq!(exact.len(), 64);
    assert_eq!(names.exposed_for("s", &tool_64), Some(exact.as_str()));
    let over = names.exposed_for("s", &tool_65).expect("named");
    assert_eq!(over.len(), 64);
    assert_ne!(
        over,
        format!("mcp_s_{tool_65}").get(..64).expect("long enough")
    );
}

#[test]
fn the_hash_is_a_fixed_function() {
    // Pinned: changing the hash renames users' tools. If this fails,
    // the change was not meant to ship.
    assert_eq!(fnv1a("", "", 0), 0xaf64_724c_8602_eb6e);
    assert_eq!(short_hash("a_b", "c", 0), "5ruzrf");
    assert_eq!(short_hash("a", "b_c", 0), "yfjy2z");
    let names = ExposedNames::build([NameRequest::new("a_b", "c"), NameRequest::new("a", "b_c")]);
    assert_eq!(names.exposed_for("a_b", "c"), Some("mcp_a_b_c_5ruzrf"));
    assert_eq!(names.exposed_for("a", "b_c"), Some("mcp_a_b_c_yfjy2z"));
}

#[test]
fn fnv1a_matches_the_reference_vectors() {
    // From the FNV reference test suite (Fowler, Noll, Vo).
    let fold = |bytes: &[u8]| fnv1a_update(FNV_OFFSET_BASIS, bytes);
    assert_eq!(fold(b""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fold(b"a"), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(fold(b"foobar"), 0x8594_4171_f739_67e8);
    // Our framing of a pair and a salt.
    assert_eq!(fnv1a("a", "b", 0), fold(b"a\xFFb"));
    assert_eq!(fnv1a("a", "b", 7), fold(b"a\xFFb\xFF7"));
}

#[test]
fn the_hash_separates_server_from_tool() {
    assert_ne!(short_hash("ab", "c", 0), short_hash("a", "bc", 0));
    assert_ne!(short_hash("a", "b", 0), short_hash("a", "b", 1));
    let hash = short_hash("x", "y", 0);
    assert_eq!(hash.len(), HASH_LEN);
    assert!(
        hash.chars()
            .all(|c| c.is_ascii_digit() || c.is_ascii_lowercase())
    );
}

#[test]
fn a_shuffled_list_gives_the_same_mapping() {
    let long = "L".repeat(90);
    let requests = vec![
        NameRequest::new("a_b", "c"),
        NameRequest::new("a", "b_c"),
        NameRequest::new("s", "a.b"),
        NameRequest::new("s", "a_b"),
        NameRequest::new("fs", "read_file").with_style(NameStyle::Prefixed),
        NameRequest::new("filesystem", "read_file").with_prefix("fs"),
        NameRequest::new("github", "search"),
        NameRequest::new("gitlab", "search"),
        NameRequest::new("srv", long.as_str()),
        NameRequest::new("srv", format!("{long}2")),
        NameRequest::new("ünï", "cödé"),
    ];
    let reference = ExposedNames::build(requests.clone());
    assert_table_invariants(&reference);

    // A small deterministic shuffle (no `rand` dependency): several
    // seeds of a linear congruential generator driving Fisher-Yates.
    for seed in 1..=20_u64 {
        let mut shuffled = requests.clone();
        let mut state = seed;
        for i in (1..shuffled.len()).rev() {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let j = usize::try_from((state >> 33) % (i as u64 + 1)).expect("small");
            shuffled.swap(i, j);
        }
        let names = ExposedNames::build(shuffled);
        assert_eq!(mapping(&names), mapping(&reference), "seed {seed}");
    }
    let mut reversed = requests;
    reversed.reverse();
    assert_eq!(mapping(&ExposedNames::build(reversed)), mapping(&reference));
}

#[test]
fn prefixed_names_that_collide_are_both_hashed() {
    // `fs` (prefix defaults to server) and `filesystem` with prefix
    // `fs` both want `fs__read_file`.
    let names = ExposedNames::build([
        NameRequest::new("fs", "read_file").with_style(NameStyle::Prefixed),
        NameRequest::new("filesystem", "read_file").with_prefix("fs"),
    ]);
    assert_table_invariants(&names);
    assert_eq!(names.resolve("fs__read_file"), None);
    assert!(names.iter().all(ExposedName::hashed));
}

#[test]
fn a_hashed_name_never_takes_a_bare_name_from_another_tool() {
    // A tool literally named like the hashed name of `a_b`/`c`.
    let clash_suffix = short_hash("a_b", "c", 0);
    let sneaky_tool = format!("b_c_{clash_suffix}");
    let names = ExposedNames::build([
        NameRequest::new("a_b", "c"),
        NameRequest::new("a", "b_c"),
        NameRequest::new("a", sneaky_tool.as_str()),
    ]);
    assert_table_invariants(&names);
    let bare = format!("mcp_a_b_c_{clash_suffix}");
    assert_eq!(names.resolve(&bare), Some(("a", sneaky_tool.as_str())));
    let salted = names.exposed_for("a_b", "c").expect("named");
    assert_eq!(salted, format!("mcp_a_b_c_{}", short_hash("a_b", "c", 1)));
}

#[test]
fn duplicate_requests_name_the_pair_once_regardless_of_order() {
    let prefixed = NameRequest::new("fs", "read").with_style(NameStyle::Prefixed);
    let namespaced = NameRequest::new("fs", "read");
    let one = ExposedNames::build([prefixed.clone(), namespaced.clone()]);
    let two = ExposedNames::build([namespaced, prefixed]);
    assert_eq!(one.len(), 1);
    assert_eq!(mapping(&one), mapping(&two));
    assert_eq!(one.exposed_for("fs", "read"), Some("mcp_fs_read"));
}

#[test]
fn unknown_names_resolve_to_none() {
    let names = ExposedNames::build([NameRequest::new("fs", "read")]);
    assert_eq!(names.resolve("mcp_fs_write"), None);
    assert_eq!(names.resolve(""), None);
    assert_eq!(names.exposed_for("fs", "write"), None);
    assert_eq!(names.exposed_for("git", "read"), None);
}

#[test]
fn iteration_is_sorted_by_server_then_tool() {
    let names = ExposedNames::build([
        NameRequest::new("b", "x"),
        NameRequest::new("a", "z"),
        NameRequest::new("a", "y"),
    ]);
    let order: Vec<(&str, &str)> = names.iter().map(|r| (r.server(), r.tool())).collect();
    assert_eq!(order, [("a", "y"), ("a", "z"), ("b", "x")]);
}

#[test]
fn unicode_and_empty_fragments_still_give_valid_names() {
    let names = ExposedNames::build([
        NameRequest::new("日本", "読む"),
        NameRequest::new("", ""),
        NameRequest::new("", "t").with_prefix(""),
        NameRequest::new("srv.v2", "files/read"),
    ]);
    assert_table_invariants(&names);
    assert_eq!(names.exposed_for("日本", "読む"), Some("mcp______"));
    assert_eq!(
        names.exposed_for("srv.v2", "files/read"),
        Some("mcp_srv_v2_files_read")
    );
}

#[test]
fn an_empty_table_is_empty() {
    let names = ExposedNames::build(Vec::new());
    assert!(names.is_empty());
    assert_eq!(names.len(), 0);
    assert_eq!(names, ExposedNames::default());
}
