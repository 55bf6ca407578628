//! A long task: `work` goes through its steps one at a time, tells the client how far it got
//! after each (progress notifications, when the client asked for them with a progress token),
//! and stops when the client cancels it (`notifications/cancelled`) or when its time limit
//! passes. A cancelled handler is dropped at its next `.await`; what must happen even then
//! (here: recording how far the run got) goes in a `Drop`.
//!
//! A 2026-07-28 client that opts in to the tasks extension gets `work` as a task: the call is
//! answered at once with the task, the progress shows as its `statusMessage`, and
//! `tasks/cancel` stops it as `notifications/cancelled` stops a plain call. A client that does
//! not opt in gets a plain result.

use std::sync::Mutex;
use std::time::Duration;

use mcp_runtime::prelude::*;

/// How the runs of `work` ended, latest last: a cancelled run leaves its line too.
#[derive(Default)]
struct Runs(Mutex<Vec<String>>);

/// Records how one run ended when it is dropped: finished, or stopped part of the way.
struct Record<'a> {
    runs: &'a Runs,
    done: u64,
    steps: u64,
}

impl Drop for Record<'_> {
    fn drop(&mut self) {
        let line = if self.done == self.steps {
            format!("finished {} steps", self.steps)
        } else {
            format!("stopped after {} of {} steps", self.done, self.steps)
        };
        self.runs.0.lock().unwrap_or_else(|e| e.into_inner()).push(line);
    }
}

/// Works through `steps` steps of `step_ms` milliseconds each, reporting progress after each.
#[mcp_tool(timeout = "60s", task = "optional")]
async fn work(
    ctx: Context,
    runs: State<Runs>,
    /// How many steps to take
    steps: Bounded<1, 1000>,
    /// How long each step takes, in milliseconds
    step_ms: Bounded<1, 10000>,
) -> String {
    let steps = steps.get() as u64;
    let mut record = Record { runs: &runs, done: 0, steps };
    for done in 1..=steps {
        tokio::time::sleep(Duration::from_millis(step_ms.get() as u64)).await;
        record.done = done;
        let message = format!("step {done} of {steps}");
        ctx.progress(done as f64, Some(steps as f64), Some(&message)).await;
    }
    format!("Finished {steps} steps")
}

/// How the runs of `work` ended, one line each, latest last.
#[mcp_tool(read_only)]
fn runs(runs: State<Runs>) -> String {
    runs.0.lock().unwrap_or_else(|e| e.into_inner()).join("\n")
}

fn server() -> Server {
    Server::new("long-task", env!("CARGO_PKG_VERSION")).state(Runs::default())
}

fn main() -> mcp_runtime::Result<()> {
    server().run()
}

/// The long task in memory, through `mcp_runtime::testing::TestClient`.
#[cfg(test)]
mod tests {
    use std::time::Duration;

    use mcp_runtime::testing::TestClient;
    use serde_json::json;

    #[tokio::test]
    async fn a_run_reports_progress_and_a_cancelled_one_stops_where_it_was() {
        let client = TestClient::connect(super::server()).await.expect("the server starts");

        // Three quick steps, with a progress token: three notifications, in order.
        let params = json!({
            "name": "work",
            "arguments": {"steps": 3, "step_ms": 5},
            "_meta": {"progressToken": "run-1"},
        });
        let result = client.request("tools/call", params).await.expect("a result");
        assert_eq!(result["content"][0]["text"], "Finished 3 steps");
        let progress: Vec<_> = client
            .notifications()
            .into_iter()
            .filter(|n| n["method"] == "notifications/progress" && n["params"]["progressToken"] == "run-1")
            .map(|n| (n["params"]["progress"].clone(), n["params"]["message"].clone()))
            .collect();
        let expected: Vec<_> = (1..=3).map(|n| (json!(n as f64), json!(format!("step {n} of 3")))).collect();
        assert_eq!(progress, expected);

        // A long run, cancelled after a few steps: no answer comes, and it stopped part way.
        let id = client.next_request_id();
        let long = json!({"name": "work", "arguments": {"steps": 1000, "step_ms": 10}});
        let call = client.request("tools/call", long);
        let cancel = async {
            tokio::time::sleep(Duration::from_millis(150)).await;
            client.notify("notifications/cancelled", json!({"requestId": id, "reason": "enough"})).await
        };
        let (answer, cancelled) = tokio::join!(tokio::time::timeout(Duration::from_secs(2), call), cancel);
        cancelled.expect("the cancellation is sent");
        assert!(answer.is_err(), "a cancelled request gets no answer: {answer:?}");

        let runs = client.call_tool("runs", json!({})).await.expect("a result");
        let runs = runs["content"][0]["text"].as_str().expect("text").to_owned();
        let lines: Vec<&str> = runs.lines().collect();
        assert_eq!(lines[0], "finished 3 steps");
        let stopped = lines[1].strip_prefix("stopped after ").and_then(|rest| rest.strip_suffix(" of 1000 steps"));
        let done: u64 = stopped.and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("{runs}"));
        assert!((1..1000).contains(&done), "{runs}");
        client.close().await.expect("the server stops cleanly");
    }

    #[tokio::test]
    async fn as_a_task_it_reports_its_step_and_stops_when_the_task_is_cancelled() {
        use mcp_runtime::protocol::Revision;

        let client = TestClient::builder().revision(Revision::V2026_07_28).tasks().connect(super::server()).await;
        let client = client.expect("the server starts");
        let done = client.call_tool_as_task("work", json!({"steps": 3, "step_ms": 5})).await.expect("a task");
        assert_eq!(done["status"], "completed");
        assert_eq!(done["statusMessage"], "step 3 of 3", "the last progress is the task's status message");
        assert_eq!(done["result"]["content"][0]["text"], "Finished 3 steps");

        let created = client.start_tool_call("work", json!({"steps": 1000, "step_ms": 10})).await.expect("a task");
        let id = created["taskId"].as_str().expect("a task id").to_owned();
        tokio::time::sleep(Duration::from_millis(150)).await;
        client.cancel_task(&id).await.expect("cancelled");
        assert_eq!(client.get_task(&id).await.expect("the task")["status"], "cancelled");
        let runs = client.call_tool("runs", json!({})).await.expect("a result");
        let runs = runs["content"][0]["text"].as_str().expect("text").to_owned();
        assert!(runs.lines().nth(1).is_some_and(|l| l.starts_with("stopped after ")), "{runs}");

        // Without the opt-in, the same call is a plain one.
        let plain = TestClient::connect_as(super::server(), Revision::V2026_07_28).await.expect("the server starts");
        let result = plain.call_tool("work", json!({"steps": 1, "step_ms": 1})).await.expect("a result");
        assert_eq!(result["content"][0]["text"], "Finished 1 steps");
    }
}
