//! Items that ask the client (`--asking-items`): a form, two forms in a row, a URL, a message
//! from the client's model, the client's roots, and a prompt that asks before it answers. In
//! the handshake revisions the server sends requests; in 2026-07-28 the same handlers answer
//! with input-required results.

use std::sync::atomic::{AtomicU64, Ordering};

use mcp_runtime::asking::{AskError, Elicitation, SamplingRequest};
use mcp_runtime::protocol::ErrorObject;
use mcp_runtime::{Context, PromptDescriptor, PromptGet, Server, ToolDescriptor};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema, Debug)]
#[serde(rename_all = "lowercase")]
enum Size {
    /// A small room
    Small,
    /// A large room
    Large,
}

/// The booking form.
#[derive(Deserialize, JsonSchema, Debug)]
struct Booking {
    /// Who books
    name: String,
    /// How many nights
    nights: u32,
    /// Breakfast included?
    breakfast: Option<bool>,
    /// The room
    size: Size,
}

/// A one-field form.
#[derive(Deserialize, JsonSchema)]
struct Name {
    /// A name
    name: String,
}

#[derive(Deserialize, JsonSchema)]
struct NoArgs {}

/// How many times `tally` ran up to its question, in this process: a side effect a handler
/// kept for its 2026-07-28 retry does not repeat.
static TALLY_RUNS: AtomicU64 = AtomicU64::new(0);

fn outcome<T>(answer: Result<Elicitation<T>, AskError>, accepted: impl FnOnce(T) -> String) -> Result<String, String> {
    match answer.map_err(|e| e.to_string())? {
        Elicitation::Accept(value) => Ok(accepted(value)),
        Elicitation::Decline => Ok("declined".into()),
        Elicitation::Cancel => Ok("cancelled".into()),
    }
}

pub(crate) fn add(server: Server) -> Server {
    server
        .tool(ToolDescriptor::new("book").description("Asks for a booking form").handler_with_context(
            |_: NoArgs, ctx: Context| async move {
                outcome(ctx.elicit::<Booking>("Book a room").await, |b| {
                    format!("booked: {} for {} nights, breakfast {:?}, {:?}", b.name, b.nights, b.breakfast, b.size)
                })
            },
        ))
        .tool(ToolDescriptor::new("two_names").description("Asks for two names in a row").handler_with_context(
            |_: NoArgs, ctx: Context| async move {
                let first = match ctx.elicit::<Name>("First name?").await.map_err(|e| e.to_string())? {
                    Elicitation::Accept(n) => n.name,
                    _ => return Ok::<_, String>("stopped at the first".to_owned()),
                };
                outcome(ctx.elicit::<Name>("Second name?").await, |second| format!("{first} and {}", second.name))
            },
        ))
        .tool(ToolDescriptor::new("tally").description("Counts its runs, then asks for a name").handler_with_context(
            |_: NoArgs, ctx: Context| async move {
                TALLY_RUNS.fetch_add(1, Ordering::SeqCst);
                let answer = ctx.elicit::<Name>("Who is counting?").await;
                // After the answer: reaches the request that brought it.
                ctx.progress(1.0, Some(1.0), Some("answered")).await;
                outcome(answer, |n| {
                    format!("{}: {} run(s) up to the question", n.name, TALLY_RUNS.load(Ordering::SeqCst))
                })
            },
        ))
        .tool(ToolDescriptor::new("visit").description("Asks the user to visit a page").handler_with_context(
            |_: NoArgs, ctx: Context| async move {
                outcome(ctx.elicit_url("Sign in, please", "https://example.com/sign-in").await, |()| "visited".into())
            },
        ))
        .tool(ToolDescriptor::new("ask_model").description("Asks the client's model").handler_with_context(
            |_: NoArgs, ctx: Context| async move {
                let request = SamplingRequest::new(50).system_prompt("Be brief.").user("Say hello.");
                let message = ctx.sample(request).await.map_err(|e| e.to_string())?;
                Ok::<_, String>(format!("{} said: {}", message.model, message.text().unwrap_or("(no text)")))
            },
        ))
        .tool(ToolDescriptor::new("list_roots").description("Lists the client's roots").handler_with_context(
            |_: NoArgs, ctx: Context| async move {
                let roots = ctx.roots().await.map_err(|e| e.to_string())?;
                let listed: Vec<String> =
                    roots.iter().map(|r| format!("{} ({})", r.uri, r.name.as_deref().unwrap_or("-"))).collect();
                Ok::<_, String>(format!("roots: {}", listed.join(", ")))
            },
        ))
        .prompt(PromptDescriptor::new("asking_prompt").description("Asks for a name first").handler(
            |get: PromptGet| async move {
                match get.context().elicit::<Name>("Whom shall I greet?").await {
                    Ok(Elicitation::Accept(name)) => Ok(format!("Greet {} warmly.", name.name)),
                    Ok(_) => Ok("Greet nobody.".to_owned()),
                    Err(e) => Err(ErrorObject::internal(e.to_string())),
                }
            },
        ))
}
