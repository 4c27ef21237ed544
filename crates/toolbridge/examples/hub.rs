//! The README's hub example: load toolbridge.toml, connect every server,
//! call a tool by its exposed name. Kept here so CI compiles it.

use toolbridge::{
    audit::AuditLog,
    config::{AuditConfig, HubConfig},
    hub::Hub,
};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let config = HubConfig::load("toolbridge.toml")?;
    let hub = Hub::new();
    hub.record_audit(AuditLog::open(
        config.audit.as_ref().unwrap_or(&AuditConfig::Off),
    )?);
    for (server, outcome) in hub.connect_all(&config).await {
        if let Err(error) = outcome {
            eprintln!("{server}: {error}");
        }
    }
    let reply = hub
        .call("mcp_everything_echo", serde_json::json!({"message": "hi"}))
        .await?;
    println!("{}", reply.text_content());
    let _agent_tools = hub.registry(); // a ToolRegistry, beside your native tools
    hub.close().await;
    Ok(())
}
