//! The fixtures the official MCP conformance suite calls, declared as ordinary user code:
//! tools of every content kind, logging, progress, sampling, elicitation, a tool that closes
//! its SSE stream mid-call, resources (text, binary, subscribable, a template), prompts, the
//! tasks extension's tools and a skill (`conformance_server/skills`).
//!
//! `cargo run --example conformance_server -- --http 127.0.0.1:3001` serves it at
//! `http://127.0.0.1:3001/mcp`; without flags it serves stdio.

use std::time::Duration;

use mcp_runtime::asking::{AskError, Elicitation, SamplingRequest};
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::Role;
use mcp_runtime::{ItemKind, ServerHandle};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// A 1×1 red PNG.
const PNG: [u8; 69] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53, 0xde, 0x00, 0x00, 0x00, 0x0c, 0x49,
    0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0x00, 0x00, 0x03, 0x01, 0x01, 0x00, 0xc9, 0xfe, 0x92, 0xef,
    0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// The same PNG, base64-encoded, as image content carries it.
const PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

/// A WAV file of two silent samples, base64-encoded.
const WAV_BASE64: &str = "UklGRigAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQQAAAAAAAAA";

fn image() -> Content {
    Content::image(PNG_BASE64, "image/png")
}

// ---------------------------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------------------------

/// Returns a simple text response.
#[mcp_tool]
fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Returns a 1×1 PNG image.
#[mcp_tool]
fn test_image_content() -> Content {
    image()
}

/// Returns a short WAV audio clip.
#[mcp_tool]
fn test_audio_content() -> Content {
    Content::audio(WAV_BASE64, "audio/wav")
}

/// Returns an embedded text resource.
#[mcp_tool]
fn test_embedded_resource() -> Content {
    let text = "This is an embedded resource content.";
    Content::resource(ResourceContents::text("test://embedded-resource", Some("text/plain".into()), text))
}

/// Returns text, an image and an embedded resource.
#[mcp_tool]
fn test_multiple_content_types() -> Vec<Content> {
    let json = json!({"test": "data", "value": 123}).to_string();
    vec![
        Content::text("Multiple content types test:"),
        image(),
        Content::resource(ResourceContents::text(
            "test://mixed-content-resource",
            Some("application/json".into()),
            json,
        )),
    ]
}

/// Sends three log messages while it runs.
#[mcp_tool]
async fn test_tool_with_logging(ctx: Context) -> &'static str {
    ctx.log(LogLevel::Info, "Tool execution started").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LogLevel::Info, "Tool processing data").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LogLevel::Info, "Tool execution completed").await;
    "Tool with logging executed successfully"
}

/// Reports progress 0, 50 and 100 out of 100.
#[mcp_tool]
async fn test_tool_with_progress(ctx: Context) -> &'static str {
    for (step, progress) in [0.0, 50.0, 100.0].into_iter().enumerate() {
        if step > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        ctx.progress(progress, Some(100.0), None).await;
    }
    "Tool with progress executed successfully"
}

/// Always fails, with `isError`.
#[mcp_tool]
fn test_error_handling() -> Result<String, String> {
    Err("This tool intentionally returns an error for testing".into())
}

/// Asks the client's model to answer a prompt.
#[mcp_tool]
async fn test_sampling(
    /// The prompt to send to the model
    prompt: String,
    ctx: Context,
) -> Result<String, AskError> {
    let answer = ctx.sample(SamplingRequest::new(100).user(prompt)).await?;
    Ok(format!("LLM response: {}", answer.text().unwrap_or("(no text)")))
}

#[derive(Deserialize, Serialize, schemars::JsonSchema)]
struct UserInfo {
    /// User's response
    username: String,
    /// User's email address
    email: String,
}

/// Says what the user did with an elicitation.
fn outcome<T: Serialize>(elicitation: Elicitation<T>) -> String {
    match elicitation {
        Elicitation::Accept(content) => format!("action=accept, content={}", json!(content)),
        Elicitation::Decline => "action=decline".into(),
        Elicitation::Cancel => "action=cancel".into(),
    }
}

/// Asks the user for a name and an email address.
#[mcp_tool]
async fn test_elicitation(
    /// The message to show the user
    message: String,
    ctx: Context,
) -> Result<String, AskError> {
    Ok(format!("User response: {}", outcome(ctx.elicit::<UserInfo>(message).await?)))
}

#[derive(Deserialize, Serialize, schemars::JsonSchema, Default)]
#[serde(rename_all = "lowercase")]
enum Status {
    #[default]
    Active,
    Inactive,
    Pending,
}

#[derive(Deserialize, Serialize, schemars::JsonSchema)]
struct WithDefaults {
    /// User name
    #[serde(default = "defaults::name")]
    name: String,
    /// User age
    #[serde(default = "defaults::age")]
    age: i64,
    /// User score
    #[serde(default = "defaults::score")]
    score: f64,
    /// User status
    #[serde(default)]
    status: Status,
    /// Verification status
    #[serde(default = "defaults::verified")]
    verified: bool,
}

mod defaults {
    pub(crate) fn name() -> String {
        "John Doe".into()
    }
    pub(crate) fn age() -> i64 {
        30
    }
    pub(crate) fn score() -> f64 {
        95.5
    }
    pub(crate) fn verified() -> bool {
        true
    }
}

/// Asks for a form whose every field has a default (SEP-1034).
#[mcp_tool]
async fn test_elicitation_sep1034_defaults(ctx: Context) -> Result<String, AskError> {
    let answer = ctx.elicit::<WithDefaults>("Please review and update the form fields with defaults").await?;
    Ok(format!("Elicitation completed: {}", outcome(answer)))
}

#[derive(Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Untitled {
    Option1,
    Option2,
    Option3,
}

#[derive(Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum TitledOption {
    /// First Option
    Value1,
    /// Second Option
    Value2,
    /// Third Option
    Value3,
}

#[derive(Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Legacy {
    Opt1,
    Opt2,
    Opt3,
}

#[derive(Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum TitledChoice {
    /// First Choice
    Value1,
    /// Second Choice
    Value2,
    /// Third Choice
    Value3,
}

#[derive(Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Enums {
    /// Choose an option
    untitled_single: Untitled,
    /// Choose a titled option
    titled_single: TitledOption,
    /// Choose a legacy option
    #[schemars(extend("enumNames" = ["Option One", "Option Two", "Option Three"]))]
    legacy_enum: Legacy,
    /// Choose options
    untitled_multi: Vec<Untitled>,
    /// Choose titled options
    titled_multi: Vec<TitledChoice>,
}

/// Asks for a form with every kind of enum field (SEP-1330).
#[mcp_tool]
async fn test_elicitation_sep1330_enums(ctx: Context) -> Result<String, AskError> {
    let answer = ctx.elicit::<Enums>("Please select options from the enum fields").await?;
    Ok(format!("Elicitation completed: {}", outcome(answer)))
}

/// Tool with JSON Schema 2020-12 features
#[mcp_tool(input_schema = json!({
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
        }
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"}
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": false
}))]
fn json_schema_2020_12_tool(
    name: Option<String>,
    address: Option<serde_json::Value>,
    #[mcp(rename = "contactMethod")] contact_method: Option<String>,
    phone: Option<String>,
    email: Option<String>,
) -> String {
    let contact = match contact_method.as_deref() {
        Some("phone") => phone.unwrap_or_default(),
        _ => email.unwrap_or_default(),
    };
    format!("name={}, address={}, contact={contact}", name.unwrap_or_default(), address.unwrap_or_default())
}

/// Closes its SSE stream mid-call; the client reconnects and gets the result.
#[mcp_tool]
async fn test_reconnection(ctx: Context) -> &'static str {
    ctx.close_sse_stream();
    tokio::time::sleep(Duration::from_millis(100)).await;
    "Reconnection test completed successfully"
}

// ---------------------------------------------------------------------------------------------
// Input-required results (2026-07-28): questions under the keys the suite names
// ---------------------------------------------------------------------------------------------

#[derive(Deserialize, Serialize, schemars::JsonSchema)]
struct Name {
    name: String,
}

#[derive(Deserialize, Serialize, schemars::JsonSchema)]
struct Confirmation {
    ok: bool,
}

#[derive(Deserialize, Serialize, schemars::JsonSchema)]
struct Color {
    color: String,
}

/// The name given, or "stranger".
fn name_of(answer: Elicitation<Name>) -> String {
    match answer {
        Elicitation::Accept(Name { name }) => name,
        _ => "stranger".into(),
    }
}

/// Asks for the user's name.
#[mcp_tool]
async fn test_input_required_result_elicitation(ctx: Context) -> Result<String, AskError> {
    let name = name_of(ctx.input("user_name").elicit::<Name>("What is your name?").await?);
    Ok(format!("Hello, {name}!"))
}

/// Asks the client's model a question.
#[mcp_tool]
async fn test_input_required_result_sampling(ctx: Context) -> Result<String, AskError> {
    let question = SamplingRequest::new(100).user("What is the capital of France?");
    let answer = ctx.input("capital_question").sample(question).await?;
    Ok(format!("The model answered: {}", answer.text().unwrap_or("(no text)")))
}

/// Lists the client's roots.
#[mcp_tool]
async fn test_input_required_result_list_roots(ctx: Context) -> Result<String, AskError> {
    let roots = ctx.input("client_roots").roots().await?;
    let uris: Vec<&str> = roots.iter().map(|root| root.uri.as_str()).collect();
    Ok(format!("Client roots: {}", uris.join(", ")))
}

/// Asks for a confirmation; the answer comes back with the sealed request state.
#[mcp_tool]
async fn test_input_required_result_request_state(ctx: Context) -> Result<String, AskError> {
    let confirmed = ctx.input("confirm").elicit::<Confirmation>("Please confirm").await?;
    let ok = matches!(confirmed, Elicitation::Accept(Confirmation { ok: true }));
    Ok(format!("state-ok: the request state was verified; confirmed={ok}"))
}

/// Asks three questions at once: a name, a greeting from the model, the client's roots.
#[mcp_tool]
async fn test_input_required_result_multiple_inputs(ctx: Context) -> Result<String, AskError> {
    let (name, greeting, roots) = tokio::join!(
        ctx.input("user_name").elicit::<Name>("What is your name?"),
        ctx.input("greeting").sample(SamplingRequest::new(50).user("Generate a greeting")),
        ctx.input("client_roots").roots(),
    );
    let (name, greeting, roots) = (name_of(name?), greeting?, roots?);
    Ok(format!("{} {name} ({} roots)", greeting.text().unwrap_or("Hello"), roots.len()))
}

/// Asks two questions, one round each.
#[mcp_tool]
async fn test_input_required_result_multi_round(ctx: Context) -> Result<String, AskError> {
    let name = name_of(ctx.input("step1").elicit::<Name>("Step 1: What is your name?").await?);
    let color = match ctx.input("step2").elicit::<Color>("Step 2: What is your favorite color?").await? {
        Elicitation::Accept(Color { color }) => color,
        _ => "no color".into(),
    };
    Ok(format!("{name} likes {color}"))
}

/// Asks for a confirmation whose sealed state the suite then alters.
#[mcp_tool]
async fn test_input_required_result_tampered_state(ctx: Context) -> Result<String, AskError> {
    let confirmed = ctx.input("confirm").elicit::<Confirmation>("Please confirm").await?;
    Ok(format!("confirmed: {}", matches!(confirmed, Elicitation::Accept(Confirmation { ok: true }))))
}

/// Asks only what the client declared it can answer: the user if it can elicit, else its model.
#[mcp_tool]
async fn test_input_required_result_capabilities(ctx: Context) -> Result<String, AskError> {
    if ctx.client_supports("elicitation") {
        test_input_required_result_elicitation(ctx).await
    } else {
        test_input_required_result_sampling(ctx).await
    }
}

/// Needs the client's `sampling` capability: a client that did not declare it gets -32021.
#[mcp_tool]
async fn test_missing_capability(ctx: Context) -> Result<String, AskError> {
    let answer = ctx.input("question").sample(SamplingRequest::new(50).user("Say hello")).await?;
    Ok(format!("The model said: {}", answer.text().unwrap_or("(no text)")))
}

/// Reports progress, then asks the user: the request's stream carries notifications and its
/// answer, never a request of the server's.
#[mcp_tool]
async fn test_streaming_elicitation(ctx: Context) -> Result<String, AskError> {
    ctx.progress(1.0, Some(2.0), Some("asking")).await;
    Ok(format!("Hello, {}!", name_of(ctx.input("user_name").elicit::<Name>("What is your name?").await?)))
}

/// Logs at every level; only what the request asked for reaches the client.
#[mcp_tool]
async fn test_logging_tool(ctx: Context) -> &'static str {
    for level in [LogLevel::Debug, LogLevel::Info, LogLevel::Warning, LogLevel::Error] {
        ctx.log(level, format!("a {level} message")).await;
    }
    "logged"
}

/// Hides and shows `test_simple_text`: clients listening for tool list changes are told.
#[mcp_tool]
fn test_trigger_tool_change(handle: State<ServerHandle>) -> Result<&'static str, mcp_runtime::Error> {
    handle.disable(ItemKind::Tool, "test_simple_text")?;
    handle.enable(ItemKind::Tool, "test_simple_text")?;
    Ok("the tool list changed")
}

/// Hides and shows `test_simple_prompt`: clients listening for prompt list changes are told.
#[mcp_tool]
fn test_trigger_prompt_change(handle: State<ServerHandle>) -> Result<&'static str, mcp_runtime::Error> {
    handle.disable(ItemKind::Prompt, "test_simple_prompt")?;
    handle.enable(ItemKind::Prompt, "test_simple_prompt")?;
    Ok("the prompt list changed")
}

/// Arguments mirrored in `Mcp-Param-*` headers (2026-07-28), which the server checks.
#[mcp_tool]
fn test_headers(
    /// A region, mirrored in `Mcp-Param-Region`
    #[mcp(header = "Region")]
    region: String,
    /// A priority, mirrored in `Mcp-Param-Priority`
    #[mcp(header = "Priority")]
    priority: i64,
) -> String {
    format!("region={region} priority={priority}")
}

#[derive(Deserialize, Serialize, schemars::JsonSchema)]
struct PromptContext {
    context: String,
}

/// A prompt that first asks the user what context to use.
#[mcp_prompt]
async fn test_input_required_result_prompt(ctx: Context) -> Result<String, AskError> {
    let context = match ctx.input("user_context").elicit::<PromptContext>("What context should the prompt use?").await?
    {
        Elicitation::Accept(PromptContext { context }) => context,
        _ => "no particular context".into(),
    };
    Ok(format!("Answer with this context in mind: {context}"))
}

// ---------------------------------------------------------------------------------------------
// Resources
// ---------------------------------------------------------------------------------------------

/// A static text resource.
#[mcp_resource("test://static-text", mime = "text/plain")]
fn static_text() -> &'static str {
    "This is the content of the static text resource."
}

/// A static binary resource (a 1×1 PNG).
#[mcp_resource("test://static-binary", mime = "image/png")]
fn static_binary() -> Vec<u8> {
    PNG.to_vec()
}

/// A resource clients may subscribe to.
#[mcp_resource("test://watched-resource", mime = "text/plain", subscribe)]
fn watched_resource() -> &'static str {
    "Watched resource content"
}

/// Data for an id.
#[mcp_resource("test://template/{id}/data", mime = "application/json")]
fn template_data(id: String) -> String {
    json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}).to_string()
}

// ---------------------------------------------------------------------------------------------
// Prompts
// ---------------------------------------------------------------------------------------------

/// A simple prompt without arguments.
#[mcp_prompt]
fn test_simple_prompt() -> String {
    "This is a simple prompt for testing.".into()
}

/// A prompt with two required arguments.
#[mcp_prompt(complete(arg1 = |typed| starting_with(typed, ["paris", "park", "party"])))]
fn test_prompt_with_arguments(
    /// First test argument
    arg1: String,
    /// Second test argument
    arg2: String,
) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// A prompt embedding a resource.
#[mcp_prompt]
fn test_prompt_with_embedded_resource(
    /// URI of the resource to embed
    #[mcp(rename = "resourceUri")]
    resource_uri: String,
) -> Vec<PromptMessage> {
    let text = "Embedded resource content for testing.";
    let embedded = ResourceContents::text(resource_uri, Some("text/plain".into()), text);
    vec![
        PromptMessage { role: Role::User, content: Content::resource(embedded) },
        PromptMessage::user("Please process the embedded resource above."),
    ]
}

/// A prompt with an image.
#[mcp_prompt]
fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![PromptMessage { role: Role::User, content: image() }, PromptMessage::user("Please analyze the image above.")]
}

// The tasks extension's fixtures (2026-07-28): a plain tool, tools that may or must run as
// tasks, one that fails as a tool, one that fails as a protocol error, tasks that ask the
// user, and one that asks first and becomes a task after.

/// Greets `name`; never a task.
#[mcp_tool]
fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

/// Works for `seconds` (at most ten minutes), then says so; a task when the client asks.
#[mcp_tool(task = "optional")]
async fn slow_compute(seconds: f64, label: Option<String>) -> String {
    tokio::time::sleep(Duration::from_secs_f64(seconds.clamp(0.0, 600.0))).await;
    format!("Computed {} in {seconds} s", label.unwrap_or_default())
}

/// Fails as a tool after a second; runs only as a task.
#[mcp_tool(task = "required")]
async fn failing_job() -> Result<String, String> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err("The job failed".into())
}

/// Breaks (panics) after a moment: its task fails with a protocol error.
#[mcp_tool(task = "optional")]
async fn protocol_error_job() -> String {
    tokio::time::sleep(Duration::from_millis(100)).await;
    panic!("the job broke")
}

#[derive(Deserialize, Serialize, schemars::JsonSchema)]
struct Confirm {
    /// Delete it?
    confirm: bool,
}

/// Deletes `filename` once the user confirms; in a task, the question waits in the task.
#[mcp_tool(task = "optional")]
async fn confirm_delete(ctx: Context, filename: String) -> Result<String, AskError> {
    Ok(match ctx.elicit::<Confirm>(format!("Delete {filename}?")).await? {
        Elicitation::Accept(Confirm { confirm: true }) => format!("Deleted {filename}"),
        _ => format!("Kept {filename}"),
    })
}

#[derive(Deserialize, Serialize, schemars::JsonSchema)]
struct Entry {
    name: Option<String>,
    confirm: Option<bool>,
}

/// Asks two questions at once.
#[mcp_tool(task = "optional")]
async fn multi_input(ctx: Context) -> Result<String, AskError> {
    let (first, second) = tokio::join!(
        ctx.input("first").elicit::<Entry>("First entry?"),
        ctx.input("second").elicit::<Entry>("Second?")
    );
    let name = |answer: Elicitation<Entry>| match answer {
        Elicitation::Accept(Entry { name, .. }) => name.unwrap_or_default(),
        _ => String::new(),
    };
    Ok(format!("Got {} and {}", name(first?), name(second?)))
}

/// Asks the user's name first (an input-required round), then works on as a task.
#[mcp_tool(task = "required", task_after_input)]
async fn test_tool_with_task(ctx: Context) -> Result<String, AskError> {
    let name = name_of(ctx.input("user_name").elicit::<Name>("What is your name?").await?);
    tokio::time::sleep(Duration::from_millis(200)).await;
    Ok(format!("Hello, {name}, from a task!"))
}

fn main() -> mcp_runtime::Result<()> {
    // The skills extension's fixture: one skill, `skill://acme/refunds`, with two folders,
    // checked and carried in the binary.
    let skills = mcp_runtime::embed_skills!("skills");
    let server = Server::new("mcp-conformance-server", env!("CARGO_PKG_VERSION"))
        .client_logging()
        .dynamic_lists()
        .skills(skills);
    // The trigger tools change the lists through the server's own handle.
    let handle = server.handle();
    server.state(handle).run()
}
