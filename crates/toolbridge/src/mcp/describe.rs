//! Error descriptions for people: the underlying cause chain without the
//! wrappers rmcp puts around transport errors (which name Rust types).

use std::error::Error;

use rmcp::{
    service::{ClientInitializeError, ServiceError},
    transport::{DynamicTransportError, streamable_http_client::StreamableHttpError},
};

/// The longest description kept: a server's HTML error page must not fill
/// an error message.
const MAX_DESCRIPTION_CHARS: usize = 600;

/// `error` and its causes, joined with `: `, skipping a cause whose text
/// the description already holds; cut at [`MAX_DESCRIPTION_CHARS`].
pub(crate) fn chain(error: &(dyn Error + 'static)) -> String {
    let text = full_chain(error);
    if text.chars().count() <= MAX_DESCRIPTION_CHARS {
        return text;
    }
    let mut cut: String = text.chars().take(MAX_DESCRIPTION_CHARS).collect();
    cut.push('…');
    cut
}

fn full_chain(error: &(dyn Error + 'static)) -> String {
    let mut text = String::new();
    let mut next = Some(error);
    while let Some(current) = next {
        // rmcp's HTTP client error keeps reqwest's error without marking it
        // as the source; follow it by hand so "connection refused" shows.
        if let Some(StreamableHttpError::Client(inner)) =
            current.downcast_ref::<StreamableHttpError<reqwest::Error>>()
        {
            next = Some(inner);
            continue;
        }
        let piece = current.to_string();
        if !text.contains(&piece) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&piece);
        }
        next = current.source();
    }
    text
}

/// A transport error as its cause chain.
pub(crate) fn transport(error: &DynamicTransportError) -> String {
    chain(error.error.as_ref())
}

/// A request failure; transport failures as their cause chain.
pub(crate) fn service(error: &ServiceError) -> String {
    match error {
        ServiceError::TransportSend(dynamic) => transport(dynamic),
        other => other.to_string(),
    }
}

/// A handshake failure; transport failures as their cause chain.
pub(crate) fn initialize(error: &ClientInitializeError) -> String {
    match error {
        ClientInitializeError::TransportError { error, context } => {
            format!("could not {context}: {}", transport(error))
        }
        ClientInitializeError::LegacyFallbackFailed { fallback, .. } => initialize(fallback),
        other => other.to_string(),
    }
}

/// Whether a failed handshake is worth retrying with the plain `initialize`
/// handshake: not when the transport itself failed (nothing listens, the
/// connection closed), since a second attempt would fail the same way.
pub(crate) fn worth_initialize_retry(error: &ClientInitializeError) -> bool {
    match error {
        ClientInitializeError::TransportError { .. }
        | ClientInitializeError::ConnectionClosed(_)
        | ClientInitializeError::Cancelled => false,
        ClientInitializeError::LegacyFallbackFailed { fallback, .. } => {
            worth_initialize_retry(fallback)
        }
        _ => true,
    }
}
