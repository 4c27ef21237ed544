//! SCRATCH (to be deleted): large responses while other calls are in flight.
mod common;
use std::time::Duration;
use serde_json::json;
use toolbridge::mcp::McpServer;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn big_response_with_concurrent_small_calls() {
    let server = common::fixture(&[]).with_call_timeout(Duration::from_secs(10));
    server.connect().await.unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut bg = Vec::new();
    for _ in 0..4 {
        let h = server.handle().clone();
        let stop = stop.clone();
        bg.push(tokio::spawn(async move {
            let mut n = 0u64;
            let mut pending = Vec::new();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let h = h.clone();
                pending.push(tokio::spawn(async move { h.call_tool("echo", json!({"message": "hi"})).await }));
                tokio::time::sleep(Duration::from_micros(300)).await;
                n += 1;
            }
            for p in pending { if let Err(e) = p.await.unwrap() { return Err(format!("echo failed: {e}")); } }
            Ok::<u64, String>(n)
        }));
    }
    let mut failures = Vec::new();
    for i in 0..10 {
        let bytes = 2_000_000;
        let t = std::time::Instant::now();
        match server.call_tool("big", json!({"bytes": bytes})).await {
            Ok(r) => {
                let len = r.text_content().len();
                eprintln!("big #{i}: {len} bytes in {:?}", t.elapsed());
                if len != bytes { failures.push(format!("#{i}: wrong length {len}")); }
            }
            Err(e) => { eprintln!("big #{i}: error after {:?}: {e}", t.elapsed()); failures.push(format!("#{i}: {e}")); }
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for b in bg { eprintln!("bg: {:?}", b.await.unwrap()); }
    server.cleanup().await.unwrap();
    assert!(failures.is_empty(), "{failures:#?}");
}
