//! The rmcp `ServerHandler`: server info, protocol versions, tool listing and
//! pagination, and cancellation, `initialize` and session-expiry bookkeeping.

use std::{
    borrow::Cow,
    collections::HashSet,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
};

use rmcp::{
    ErrorData, RoleServer, ServerHandler,
    model::{
        CallToolRequestParams, CallToolResponse, CancelledNotificationParam, Implementation,
        InitializeRequestParams, InitializeResult, ListToolsResult, PaginatedRequestParams,
        ProtocolVersion, ServerCapabilities, ServerConfig, SubscriptionFilter, Tool,
    },
    service::{NotificationContext, RequestContext, SubscriptionContext},
};
use serde_json::Value;

use crate::{
    calls, catalog,
    quirks::{Paging, ProtocolMode},
};

/// The newest version a `--protocol legacy*` server negotiates.
const LEGACY_MAX: ProtocolVersion = ProtocolVersion::V_2025_06_18;

/// State shared by every session of one fixture process.
#[derive(Debug, Default)]
pub struct State {
    /// How `tools/list` is paginated.
    pub paging: Paging,
    /// Which protocol eras are served.
    pub protocol: ProtocolMode,
    /// Tools added at runtime by `add_tool`.
    pub added: Mutex<Vec<Tool>>,
    /// Request ids named by `notifications/cancelled`, in arrival order.
    pub cancelled: Mutex<Vec<Value>>,
    /// `initialize` requests handled so far, over every session.
    pub initializations: AtomicU64,
    /// HTTP session ids marked by `expire_session`; the HTTP layer closes
    /// each one when its next request arrives.
    pub expiring: Mutex<HashSet<String>>,
    /// Woken by `add_tool`: every open 2026-era `subscriptions/listen`
    /// stream that asked for it gets `notifications/tools/list_changed`.
    pub tools_changed: tokio::sync::Notify,
}

impl State {
    /// Removes `id` from the sessions to expire; whether it was there.
    pub fn take_expiring(&self, id: &str) -> bool {
        self.expiring.lock().expect("state poisoned").remove(id)
    }

    /// Built-in tools followed by the ones added at runtime.
    pub fn all_tools(&self) -> Vec<Tool> {
        let mut tools = catalog::builtin_tools();
        tools.extend(self.added.lock().expect("state poisoned").iter().cloned());
        tools
    }
}

/// The fixture MCP server; cheap to clone (one per HTTP session).
#[derive(Debug, Clone, Default)]
pub struct FixtureServer {
    state: Arc<State>,
}

impl FixtureServer {
    /// Creates a server with the given pagination and protocol behaviour.
    pub fn new(paging: Paging, protocol: ProtocolMode) -> Self {
        Self {
            state: Arc::new(State {
                paging,
                protocol,
                ..State::default()
            }),
        }
    }

    /// The state shared by every session.
    pub fn state(&self) -> &Arc<State> {
        &self.state
    }
}

fn page(
    tools: Vec<Tool>,
    paging: Paging,
    cursor: Option<&str>,
) -> Result<ListToolsResult, ErrorData> {
    if paging == Paging::Single {
        if let Some(cursor) = cursor {
            return Err(ErrorData::invalid_params(
                format!("unknown cursor {cursor:?}"),
                None,
            ));
        }
        return Ok(ListToolsResult::with_all_items(tools));
    }
    let index = match cursor {
        None => 0,
        Some("page-2") => 1,
        Some("page-3") => 2,
        Some(other) => {
            return Err(ErrorData::invalid_params(
                format!("unknown cursor {other:?}"),
                None,
            ));
        }
    };
    let per_page = tools.len().div_ceil(3);
    let items: Vec<Tool> = tools
        .into_iter()
        .skip(index * per_page)
        .take(per_page)
        .collect();
    let mut result = ListToolsResult::with_all_items(items);
    result.next_cursor = match (index, paging) {
        (0, _) => Some("page-2".into()),
        (1, _) => Some("page-3".into()),
        (_, Paging::RepeatLastCursor) => Some("page-3".into()),
        _ => None,
    };
    Ok(result)
}

impl ServerHandler for FixtureServer {
    fn get_info(&self) -> ServerConfig {
        let config = ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
        .with_server_info(Implementation::new(
            "toolbridge-fixture",
            env!("CARGO_PKG_VERSION"),
        ))
        .with_instructions("Test fixture for toolbridge: see the tool descriptions.");
        if self.state.protocol.is_legacy() {
            config.with_protocol_version(LEGACY_MAX)
        } else {
            config
        }
    }

    fn accepted_subscription_filter(
        &self,
        _requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(SubscriptionFilter::builder().tools_list_changed().build())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        loop {
            tokio::select! {
                () = context.cancelled() => return Ok(()),
                () = self.state.tools_changed.notified() => {
                    if let Err(error) = context.sink().notify_tool_list_changed().await {
                        eprintln!("fixture: could not notify a subscription: {error}");
                    }
                }
            }
        }
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        if self.state.protocol.is_legacy() {
            Cow::Borrowed(ProtocolVersion::known_up_to(&LEGACY_MAX))
        } else {
            Cow::Borrowed(ProtocolVersion::KNOWN_VERSIONS)
        }
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        // Counted for `initialize_count`, which shows a client re-initialized.
        self.state.initializations.fetch_add(1, Ordering::SeqCst);
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let cursor = request.as_ref().and_then(|r| r.cursor.as_deref());
        page(self.state.all_tools(), self.state.paging, cursor)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.state
            .all_tools()
            .into_iter()
            .find(|tool| tool.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        calls::call(&self.state, request, context)
            .await
            .map(Into::into)
    }

    async fn on_cancelled(
        &self,
        notification: CancelledNotificationParam,
        _context: NotificationContext<RoleServer>,
    ) {
        let id = serde_json::to_value(&notification.request_id).unwrap_or(Value::Null);
        self.state
            .cancelled
            .lock()
            .expect("state poisoned")
            .push(id);
    }
}
