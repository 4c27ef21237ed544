//! Throughput of `tools/call` over stdio: the bridge against a raw line
//! client, both talking to the same `toolbridge-fixture` server (`echo`).
//!
//! Five measurements, interleaved over several rounds in one process:
//! - `bridge_seq`: one call at a time through [`FunctionTool::call`] on a tool
//!   bridged with [`mcp_server_to_function_tools`], from a task on the
//!   runtime (as agent code runs);
//! - `bridge_seq_block_on` (for reference, not in the ratios): the same loop
//!   driven by `Runtime::block_on` on the main thread, as a plain
//!   `#[tokio::main]` body would; every wake-up then crosses threads;
//! - `raw_seq`: one call at a time from a hand-written client (blocking std
//!   I/O, `initialize` handshake by hand, one JSON line out, one line back);
//! - `bridge_64`: 64 tasks sharing one bridged connection, 64 calls in flight;
//! - `raw_64`: the raw client keeping 64 requests in flight (sliding window:
//!   every reply read is replaced by a new request, written in one batch).
//!
//! The table also shows the CPU time (user + system, from `/proc`) per call
//! of the client (this process) and of the server process, which says where
//! a gap comes from when the two run on one CPU.
//!
//! Targets (see `PERFORMANCE.md`): `bridge_seq / raw_seq >= 0.9`,
//! `bridge_64 / bridge_seq >= 5`, `bridge_64 / raw_64 >= 0.5`.
//!
//! Run: `cargo bench -p toolbridge --bench stdio_calls`; pinned to one CPU
//! (shows CPU cost per call): `taskset -c 0 cargo bench -p toolbridge --bench
//! stdio_calls`.
//!
//! Environment:
//! - `BENCH_CALLS`: sequential calls per measurement (default 20000);
//! - `BENCH_CONCURRENT_CALLS`: calls per 64-in-flight measurement (default
//!   5 × `BENCH_CALLS`);
//! - `BENCH_ROUNDS`: rounds; the table shows the median (default 3);
//! - `BENCH_FIXTURE_ARGS`: arguments for both fixture processes, split on
//!   whitespace (default `--protocol legacy`, so the bridge negotiates the
//!   same `initialize` era as the raw client; set it empty to let the bridge
//!   use the 2026-07-28 era);
//! - `BENCH_FIXTURE`: another server binary instead of the fixture.

use std::{
    io::{self, BufRead, BufReader, BufWriter, Write},
    path::{Path, PathBuf},
    process::{Child, ChildStdin, ChildStdout, Command, ExitCode, Stdio},
    time::{Duration, Instant},
};

use serde_json::json;
use toolbridge::{
    FunctionTool, Tool, ToolFilter,
    mcp::{BridgeOptions, McpServer, McpServerStdio, mcp_server_to_function_tools},
};

/// Requests in flight in the concurrent measurements.
const IN_FLIGHT: usize = 64;
/// The reply every echo call must produce.
const EXPECTED: &str = "Echo: hi";

type BoxError = Box<dyn std::error::Error + Send + Sync>;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("stdio_calls: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Counts and rounds, from the environment.
struct Config {
    sequential: usize,
    concurrent: usize,
    rounds: usize,
}

impl Config {
    fn from_env() -> Result<Self, BoxError> {
        let sequential = env_usize("BENCH_CALLS")?.unwrap_or(20_000).max(1);
        let concurrent = env_usize("BENCH_CONCURRENT_CALLS")?
            .unwrap_or(sequential * 5)
            .max(IN_FLIGHT);
        // Whole batches per task keep every task busy until the end.
        let concurrent = concurrent.div_ceil(IN_FLIGHT) * IN_FLIGHT;
        let rounds = env_usize("BENCH_ROUNDS")?.unwrap_or(3).max(1);
        Ok(Self {
            sequential,
            concurrent,
            rounds,
        })
    }
}

fn env_usize(name: &str) -> Result<Option<usize>, BoxError> {
    match std::env::var(name) {
        Ok(value) => {
            Ok(Some(value.trim().parse().map_err(|e| {
                format!("{name}={value:?} is not a count: {e}")
            })?))
        }
        Err(_) => Ok(None),
    }
}

fn run() -> Result<(), BoxError> {
    let config = Config::from_env()?;
    let bin = match std::env::var_os("BENCH_FIXTURE") {
        Some(path) => PathBuf::from(path),
        None => fixture_bin()?,
    };
    // Like for like by default: the raw client speaks the `initialize` era,
    // so the fixture is told to as well (a 2026-07-28 session adds per-request
    // `_meta` that costs the server, not the client, more per call).
    let fixture_args: Vec<String> = std::env::var("BENCH_FIXTURE_ARGS")
        .unwrap_or_else(|_| "--protocol legacy".to_owned())
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    println!(
        "stdio_calls: fixture {}{}, {} CPU(s) available, {} sequential / {} concurrent calls, {} round(s)",
        bin.display(),
        fixture_args
            .iter()
            .fold(String::new(), |all, arg| all + " " + arg),
        cpus,
        config.sequential,
        config.concurrent,
        config.rounds
    );

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;

    let server =
        McpServerStdio::command(bin.to_string_lossy(), fixture_args.clone()).with_name("fixture");
    let echo = runtime.block_on(bridge_echo(&server))?;
    println!(
        "bridge: negotiated protocol {}",
        server
            .handle()
            .protocol_version()
            .unwrap_or_else(|| "?".to_owned())
    );
    let mut raw = RawClient::start(&bin, &fixture_args)?;
    println!("raw:    negotiated protocol {}", raw.protocol_version);

    // Warm up: page in code, grow buffers, let both processes settle.
    let warm_seq = (config.sequential / 10).max(100);
    let warm_conc = (config.concurrent / 10).max(IN_FLIGHT);
    raw.sequential(warm_seq)?;
    raw.pipelined(warm_conc, IN_FLIGHT)?;
    runtime.block_on(bridge_sequential_in_task(&echo, warm_seq))?;
    runtime.block_on(bridge_sequential(&echo, warm_seq))?;
    runtime.block_on(bridge_concurrent(&echo, warm_conc))?;

    let bridge_pid = server.handle().pid();
    let raw_pid = Some(raw.child.id());
    let mut results = Results::default();
    for round in 1..=config.rounds {
        let r = RoundFigures {
            raw_seq: measure(config.sequential, raw_pid, || {
                raw.sequential(config.sequential)
            })?,
            bridge_seq: measure(config.sequential, bridge_pid, || {
                runtime.block_on(bridge_sequential_in_task(&echo, config.sequential))
            })?,
            bridge_seq_block_on: measure(config.sequential, bridge_pid, || {
                runtime.block_on(bridge_sequential(&echo, config.sequential))
            })?,
            raw_64: measure(config.concurrent, raw_pid, || {
                raw.pipelined(config.concurrent, IN_FLIGHT)
            })?,
            bridge_64: measure(config.concurrent, bridge_pid, || {
                runtime.block_on(bridge_concurrent(&echo, config.concurrent))
            })?,
        };
        println!(
            "round {round}: raw_seq {:>7.0}  bridge_seq {:>7.0} (block_on {:>7.0})  raw_64 {:>7.0}  bridge_64 {:>7.0} calls/s",
            r.raw_seq.rate,
            r.bridge_seq.rate,
            r.bridge_seq_block_on.rate,
            r.raw_64.rate,
            r.bridge_64.rate
        );
        results.push(r);
    }

    raw.finish()?;
    runtime.block_on(server.cleanup())?;
    results.print();
    Ok(())
}

/// One measurement: throughput, and CPU time per call of this process (the
/// client) and of the server process.
#[derive(Clone, Copy)]
struct Figure {
    /// Calls per second (wall clock).
    rate: f64,
    /// Client CPU (user + system) per call, in µs; `NaN` without `/proc`.
    client_us: f64,
    /// Server CPU (user + system) per call, in µs; `NaN` without `/proc`.
    server_us: f64,
}

/// Runs `f`, which makes `calls` calls, and measures it.
fn measure(
    calls: usize,
    server_pid: Option<u32>,
    f: impl FnOnce() -> Result<(), BoxError>,
) -> Result<Figure, BoxError> {
    let client_before = cpu_ticks("self");
    let server_before = server_pid.and_then(|pid| cpu_ticks(&pid.to_string()));
    let start = Instant::now();
    f()?;
    let elapsed = start.elapsed();
    let client_after = cpu_ticks("self");
    let server_after = server_pid.and_then(|pid| cpu_ticks(&pid.to_string()));
    let per_call_us = |before: Option<u64>, after: Option<u64>| match (before, after) {
        (Some(b), Some(a)) => (a - b) as f64 * 1e6 / USER_HZ / calls as f64,
        _ => f64::NAN,
    };
    Ok(Figure {
        rate: calls as f64 / elapsed.as_secs_f64(),
        client_us: per_call_us(client_before, client_after),
        server_us: per_call_us(server_before, server_after),
    })
}

/// The unit of `/proc/<pid>/stat` CPU times (`USER_HZ`, 100 on Linux).
const USER_HZ: f64 = 100.0;

/// User + system CPU time of a process (all its threads), in `USER_HZ` ticks.
fn cpu_ticks(pid: &str) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the parenthesised command name: state is field 3, utime
    // field 14, stime field 15.
    let mut rest = stat.rsplit_once(')')?.1.split_whitespace().skip(11);
    let utime: u64 = rest.next()?.parse().ok()?;
    let stime: u64 = rest.next()?.parse().ok()?;
    Some(utime + stime)
}

// ---------------------------------------------------------------------------
// The bridge

/// Connects `server` and returns its `echo` tool, bridged.
async fn bridge_echo(server: &McpServerStdio) -> Result<FunctionTool, BoxError> {
    server.connect().await?;
    let tools = mcp_server_to_function_tools(
        server,
        BridgeOptions::default().with_tool_filter(ToolFilter::allow(["echo"])),
    )
    .await?;
    let echo = tools
        .into_iter()
        .next()
        .ok_or("the fixture has no `echo` tool")?;
    Ok(echo)
}

async fn bridge_call(echo: &FunctionTool) -> Result<(), BoxError> {
    let result = echo.call(json!({"message": "hi"})).await?;
    let text = result.text_content();
    if result.is_error || text != EXPECTED {
        return Err(format!("unexpected echo reply: {result:?}").into());
    }
    Ok(())
}

async fn bridge_sequential(echo: &FunctionTool, calls: usize) -> Result<(), BoxError> {
    for _ in 0..calls {
        bridge_call(echo).await?;
    }
    Ok(())
}

/// [`bridge_sequential`] in one task on the runtime's workers.
async fn bridge_sequential_in_task(echo: &FunctionTool, calls: usize) -> Result<(), BoxError> {
    let echo = echo.clone();
    tokio::spawn(async move { bridge_sequential(&echo, calls).await }).await?
}

/// `IN_FLIGHT` tasks, each making `calls / IN_FLIGHT` calls one after the other.
async fn bridge_concurrent(echo: &FunctionTool, calls: usize) -> Result<(), BoxError> {
    let per_task = calls / IN_FLIGHT;
    let tasks: Vec<_> = (0..IN_FLIGHT)
        .map(|_| {
            let echo = echo.clone();
            tokio::spawn(async move { bridge_sequential(&echo, per_task).await })
        })
        .collect();
    for task in tasks {
        task.await??;
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// The raw baseline: no framework, blocking std I/O.

struct RawClient {
    child: Child,
    writer: Option<BufWriter<ChildStdin>>,
    reader: BufReader<ChildStdout>,
    line: Vec<u8>,
    next_id: u64,
    protocol_version: String,
}

impl RawClient {
    /// Spawns the fixture and runs the `initialize` handshake by hand.
    fn start(bin: &Path, args: &[String]) -> Result<Self, BoxError> {
        let mut child = Command::new(bin)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let stdin = child.stdin.take().ok_or("no stdin pipe")?;
        let stdout = child.stdout.take().ok_or("no stdout pipe")?;
        let mut client = Self {
            child,
            writer: Some(BufWriter::with_capacity(64 * 1024, stdin)),
            reader: BufReader::with_capacity(64 * 1024, stdout),
            line: Vec::with_capacity(4096),
            next_id: 1,
            protocol_version: String::new(),
        };
        client.write_line(
            br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw-bench","version":"0.0.0"}}}"#,
        )?;
        client.flush()?;
        loop {
            client.read_line()?;
            let Ok(message) = serde_json::from_slice::<serde_json::Value>(&client.line) else {
                continue;
            };
            if message["id"] != json!(0) {
                continue;
            }
            let version = message["result"]["protocolVersion"]
                .as_str()
                .ok_or_else(|| format!("initialize failed: {message}"))?;
            client.protocol_version = version.to_owned();
            break;
        }
        client.write_line(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)?;
        client.flush()?;
        Ok(client)
    }

    fn writer(&mut self) -> io::Result<&mut BufWriter<ChildStdin>> {
        self.writer
            .as_mut()
            .ok_or_else(|| io::Error::new(io::ErrorKind::BrokenPipe, "stdin closed"))
    }

    fn write_line(&mut self, line: &[u8]) -> io::Result<()> {
        let writer = self.writer()?;
        writer.write_all(line)?;
        writer.write_all(b"\n")
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer()?.flush()
    }

    /// Buffers one `tools/call` request (not flushed).
    fn write_call(&mut self) -> io::Result<()> {
        let id = self.next_id;
        self.next_id += 1;
        let writer = self.writer()?;
        writeln!(
            writer,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"message":"hi"}}}}}}"#
        )
    }

    fn read_line(&mut self) -> Result<(), BoxError> {
        self.line.clear();
        if self.reader.read_until(b'\n', &mut self.line)? == 0 {
            return Err("the fixture closed its stdout".into());
        }
        Ok(())
    }

    /// Reads one reply and checks it carries the echo text.
    fn read_reply(&mut self) -> Result<(), BoxError> {
        self.read_line()?;
        if !self
            .line
            .windows(EXPECTED.len())
            .any(|w| w == EXPECTED.as_bytes())
        {
            return Err(format!(
                "unexpected raw reply: {}",
                String::from_utf8_lossy(&self.line)
            )
            .into());
        }
        Ok(())
    }

    fn sequential(&mut self, calls: usize) -> Result<(), BoxError> {
        for _ in 0..calls {
            self.write_call()?;
            self.flush()?;
            self.read_reply()?;
        }
        Ok(())
    }

    /// `calls` calls with `window` in flight: write a window, then for every
    /// batch of replies already received, write as many new requests.
    fn pipelined(&mut self, calls: usize, window: usize) -> Result<(), BoxError> {
        let mut sent = 0;
        let mut received = 0;
        while sent < calls.min(window) {
            self.write_call()?;
            sent += 1;
        }
        self.flush()?;
        while received < calls {
            self.read_reply()?;
            received += 1;
            // Take every reply that is already buffered before refilling.
            while received < calls && self.reader.buffer().contains(&b'\n') {
                self.read_reply()?;
                received += 1;
            }
            let refill = (calls - sent).min(window - (sent - received));
            for _ in 0..refill {
                self.write_call()?;
            }
            sent += refill;
            if refill > 0 {
                self.flush()?;
            }
        }
        Ok(())
    }

    /// Closes stdin and reaps the fixture (killing it if it lingers).
    fn finish(mut self) -> Result<(), BoxError> {
        drop(self.writer.take());
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline {
            if self.child.try_wait()?.is_some() {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        self.child.kill()?;
        self.child.wait()?;
        Ok(())
    }
}

impl Drop for RawClient {
    fn drop(&mut self) {
        // Only reached on an error path (finish() reaps on success).
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

// ---------------------------------------------------------------------------
// Results

#[derive(Clone, Copy)]
struct RoundFigures {
    raw_seq: Figure,
    bridge_seq: Figure,
    bridge_seq_block_on: Figure,
    raw_64: Figure,
    bridge_64: Figure,
}

#[derive(Default)]
struct Results {
    rounds: Vec<RoundFigures>,
}

/// The median, minimum and maximum of one value over the rounds.
#[derive(Clone, Copy)]
struct Spread {
    median: f64,
    min: f64,
    max: f64,
}

impl Results {
    fn push(&mut self, round: RoundFigures) {
        self.rounds.push(round);
    }

    fn spread(&self, field: impl Fn(&RoundFigures) -> f64) -> Spread {
        let mut values: Vec<f64> = self.rounds.iter().map(field).collect();
        values.sort_by(f64::total_cmp);
        Spread {
            median: values[values.len() / 2],
            min: values[0],
            max: values[values.len() - 1],
        }
    }

    fn print(&self) {
        type Pick = fn(&RoundFigures) -> Figure;
        let rows: [(&str, Pick); 5] = [
            ("raw_seq (1 in flight)", |r| r.raw_seq),
            ("bridge_seq (1 in flight)", |r| r.bridge_seq),
            ("bridge_seq_block_on (reference)", |r| r.bridge_seq_block_on),
            ("raw_64 (64 in flight)", |r| r.raw_64),
            ("bridge_64 (64 in flight)", |r| r.bridge_64),
        ];
        println!();
        println!(
            "| measurement | calls/s (median) | min … max | wall µs/call | client CPU µs/call | server CPU µs/call |"
        );
        println!("|---|---:|---:|---:|---:|---:|");
        for (name, pick) in rows {
            let rate = self.spread(|r| pick(r).rate);
            let client = self.spread(|r| pick(r).client_us);
            let server = self.spread(|r| pick(r).server_us);
            println!(
                "| {name} | {:.0} | {:.0} … {:.0} | {:.2} | {:.1} | {:.1} |",
                rate.median,
                rate.min,
                rate.max,
                1e6 / rate.median,
                client.median,
                server.median
            );
        }

        let raw_seq = self.spread(|r| r.raw_seq.rate).median;
        let bridge_seq = self.spread(|r| r.bridge_seq.rate).median;
        let raw_64 = self.spread(|r| r.raw_64.rate).median;
        let bridge_64 = self.spread(|r| r.bridge_64.rate).median;
        println!();
        println!("| ratio | value | target | |");
        println!("|---|---:|---:|---|");
        for (name, value, target) in [
            ("bridge_seq / raw_seq", bridge_seq / raw_seq, 0.9),
            ("bridge_64 / bridge_seq", bridge_64 / bridge_seq, 5.0),
            ("bridge_64 / raw_64", bridge_64 / raw_64, 0.5),
        ] {
            let verdict = if value >= target { "ok" } else { "BELOW" };
            println!("| {name} | {value:.2} | ≥ {target} | {verdict} |");
        }
    }
}

// ---------------------------------------------------------------------------
// Locating the fixture (as `tests/common/mod.rs` does)

/// `target/<profile>/toolbridge-fixture`, built if missing or stale.
fn fixture_bin() -> Result<PathBuf, BoxError> {
    toolbridge_testkit::try_fixture_bin().map_err(Into::into)
}
