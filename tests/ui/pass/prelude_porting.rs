//! What a server ported from rmcp needs comes from the prelude alone: a tool that asks the user
//! (`Elicitation`, `AskError`), structured output, state, a resource template and a prompt.
#![deny(warnings)]

use mcp_runtime::prelude::*;
use std::sync::Mutex;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    /// Whether to go on
    confirm: bool,
}

#[derive(Default)]
struct Tasks(Mutex<Vec<String>>);

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Listed {
    tasks: Vec<String>,
    due: Option<String>,
}

/// Completes a task, once the user confirms.
#[mcp_tool]
async fn complete_task(ctx: &Context, tasks: State<Tasks>, id: usize) -> Result<String, AskError> {
    Ok(match ctx.elicit::<Confirm>("Complete it?").await? {
        Elicitation::Accept(Confirm { confirm: true }) => {
            let mut tasks = tasks.0.lock().unwrap_or_else(|e| e.into_inner());
            if id < tasks.len() {
                tasks.remove(id);
            }
            "completed".to_owned()
        }
        Elicitation::Accept(_) | Elicitation::Decline | Elicitation::Cancel => "kept".to_owned(),
    })
}

/// Lists the tasks.
#[mcp_tool]
fn list_tasks(tasks: State<Tasks>) -> Json<Listed> {
    let tasks = tasks.0.lock().unwrap_or_else(|e| e.into_inner()).clone();
    Json(Listed { tasks, due: None })
}

/// One task.
#[mcp_resource("tasks://{id}")]
fn task(id: String) -> String {
    id
}

/// Plans the day.
#[mcp_prompt]
fn plan(focus: String) -> String {
    format!("Plan the day around {focus}.")
}

fn main() {
    let server = Server::new("team-tasks", "1.0.0").state(Tasks::default());
    server.validate().expect("a valid server");
}
