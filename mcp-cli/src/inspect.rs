//! `mcp inspect`: the handshake step by step, what the capabilities allow, and every item the
//! server lists, with the time each took.

use std::time::{Duration, Instant};

use mcp_runtime::client::{Client, ClientError, Negotiation};
use mcp_runtime::protocol::ServerCapabilities;
use serde::Serialize;
use serde_json::{Value, json};

use crate::args::Connect;
use crate::connect::{self, Failure, Target};
use crate::output::{Style, millis, print_json};

/// Runs `mcp inspect`.
pub(crate) async fn run(positional: &[String], args: &Connect) -> Result<(), Failure> {
    let (target, rest) = Target::read(positional, args)?;
    if let Some(extra) = rest.first() {
        return Err(Failure::Usage(format!("`mcp inspect` takes a server only; `{extra}` is left over")));
    }
    let started = Instant::now();
    let client = connect::connect(connect::builder(args)?, &target).await?;
    let connected = started.elapsed();
    let negotiation = client.negotiation().clone();
    let lists = Lists::fetch(&client, &negotiation.capabilities).await;
    let _ = client.close().await;
    if args.json {
        print_json(&report(&target, connected, &negotiation, &lists));
    } else {
        print_text(&target, connected, &negotiation, &lists, Style::for_stdout());
    }
    Ok(())
}

/// One list the server was asked for: its items, or why there are none, and the time it took.
#[derive(Debug)]
struct Listed {
    items: Result<Vec<Value>, String>,
    took: Duration,
}

/// The four lists, each `None` when its capability was not declared (not asked).
#[derive(Debug)]
struct Lists {
    tools: Option<Listed>,
    resources: Option<Listed>,
    templates: Option<Listed>,
    prompts: Option<Listed>,
}

impl Lists {
    async fn fetch(client: &Client, capabilities: &ServerCapabilities) -> Lists {
        let resources = capabilities.resources.is_some();
        Lists {
            tools: listed(capabilities.tools.is_some(), client.list_tools()).await,
            resources: listed(resources, client.list_resources()).await,
            templates: listed(resources, client.list_resource_templates()).await,
            prompts: listed(capabilities.prompts.is_some(), client.list_prompts()).await,
        }
    }

    fn each(&self) -> [(&'static str, &'static str, &Option<Listed>); 4] {
        [
            ("tools", "Tools", &self.tools),
            ("resources", "Resources", &self.resources),
            ("resourceTemplates", "Resource templates", &self.templates),
            ("prompts", "Prompts", &self.prompts),
        ]
    }
}

async fn listed<T: Serialize>(
    declared: bool,
    list: impl Future<Output = Result<Vec<T>, ClientError>>,
) -> Option<Listed> {
    if !declared {
        return None;
    }
    let started = Instant::now();
    let items = list.await.map(|items| items.iter().filter_map(|i| serde_json::to_value(i).ok()).collect());
    Some(Listed { items: items.map_err(|e| e.to_string()), took: started.elapsed() })
}

/// What each capability lets a client do, in a sentence.
fn meanings(capabilities: &ServerCapabilities) -> Vec<(String, String)> {
    let changes = |list_changed: Option<bool>, list: &str| {
        if list_changed == Some(true) {
            format!("the list may change: the server sends notifications/{list}/list_changed")
        } else {
            "the list is fixed while connected".to_owned()
        }
    };
    let mut meanings = Vec::new();
    if let Some(tools) = &capabilities.tools {
        meanings
            .push(("tools".to_owned(), format!("tools/list, tools/call; {}", changes(tools.list_changed, "tools"))));
    }
    if let Some(resources) = &capabilities.resources {
        let mut meaning = format!(
            "resources/list, resources/templates/list, resources/read; {}",
            changes(resources.list_changed, "resources")
        );
        if resources.subscribe == Some(true) {
            meaning.push_str("; resources/subscribe: notifications/resources/updated when one changes");
        }
        meanings.push(("resources".to_owned(), meaning));
    }
    if let Some(prompts) = &capabilities.prompts {
        meanings.push((
            "prompts".to_owned(),
            format!("prompts/list, prompts/get; {}", changes(prompts.list_changed, "prompts")),
        ));
    }
    if capabilities.logging.is_some() {
        meanings.push(("logging".to_owned(), "logging/setLevel; the server sends notifications/message".to_owned()));
    }
    if capabilities.completions.is_some() {
        meanings.push((
            "completions".to_owned(),
            "completion/complete: suggestions for prompt and template arguments".to_owned(),
        ));
    }
    for (id, _) in capabilities.extensions.iter().flatten() {
        meanings.push((format!("extension {id}"), "an extension both sides must opt in to".to_owned()));
    }
    for (name, _) in capabilities.experimental.iter().flatten() {
        meanings.push((format!("experimental {name}"), "non-standard".to_owned()));
    }
    meanings
}

fn report(target: &Target, connected: Duration, negotiation: &Negotiation, lists: &Lists) -> Value {
    let steps: Vec<Value> = negotiation
        .steps
        .iter()
        .map(|step| {
            let outcome = match &step.outcome {
                Ok(revision) => json!({"answered": revision.as_str()}),
                Err(why) => json!({"refused": why}),
            };
            json!({"method": step.method, "asked": step.asked.as_str(), "outcome": outcome, "ms": ms(step.took)})
        })
        .collect();
    let mut report = json!({
        "target": target.describe(),
        "revision": negotiation.revision.as_str(),
        "steps": steps,
        "connectMs": ms(connected),
        "serverInfo": negotiation.server_info,
        "instructions": negotiation.instructions,
        "capabilities": negotiation.capabilities,
        "supportedVersions": negotiation.supported_versions,
        "meanings": meanings(&negotiation.capabilities).into_iter().map(|(k, v)| json!({"capability": k, "meaning": v})).collect::<Vec<_>>(),
    });
    let mut timings = serde_json::Map::new();
    for (key, _, listed) in lists.each() {
        let value = match listed {
            None => Value::Null,
            Some(Listed { items: Ok(items), took }) => {
                timings.insert(key.to_owned(), json!(ms(*took)));
                Value::Array(items.clone())
            }
            Some(Listed { items: Err(why), took }) => {
                timings.insert(key.to_owned(), json!(ms(*took)));
                json!({"error": why})
            }
        };
        report[key] = value;
    }
    report["listMs"] = Value::Object(timings);
    report
}

fn ms(took: Duration) -> f64 {
    (took.as_secs_f64() * 10_000.0).round() / 10.0
}

fn print_text(target: &Target, connected: Duration, negotiation: &Negotiation, lists: &Lists, style: Style) {
    println!("{} {}", style.bold("Server"), target.describe());
    println!("\n{}", style.bold("Handshake"));
    for step in &negotiation.steps {
        let outcome = match &step.outcome {
            Ok(revision) => style.green(&format!("answered {revision}")),
            Err(why) => style.yellow(&format!("refused: {why}")),
        };
        println!("  {:<16} asked {}  {}  {}", step.method, step.asked, outcome, style.dim(&millis(step.took)));
    }
    println!("  speaking {} (connected in {})", style.bold(negotiation.revision.as_str()), millis(connected));
    if !negotiation.supported_versions.is_empty() {
        println!("  the server also speaks {}", negotiation.supported_versions.join(", "));
    }
    if let Some(info) = &negotiation.server_info {
        let title = info.title.as_deref().map(|t| format!(" ({t})")).unwrap_or_default();
        println!("  {} {} {}{title}", style.dim("server"), info.name, info.version);
    }
    if let Some(instructions) = &negotiation.instructions {
        println!("\n{}", style.bold("Instructions"));
        for line in instructions.lines() {
            println!("  {line}");
        }
    }
    println!("\n{}", style.bold("Capabilities"));
    let meanings = meanings(&negotiation.capabilities);
    if meanings.is_empty() {
        println!("  none: the server declared nothing a client may ask for");
    }
    for (capability, meaning) in meanings {
        println!("  {:<14} {meaning}", style.cyan(&capability));
    }
    for (_, title, listed) in lists.each() {
        match listed {
            None => {}
            Some(Listed { items: Err(why), took }) => {
                println!(
                    "\n{} {}  {}",
                    style.bold(title),
                    style.red(&format!("failed: {why}")),
                    style.dim(&millis(*took))
                );
            }
            Some(Listed { items: Ok(items), took }) => {
                println!("\n{} ({})  {}", style.bold(title), items.len(), style.dim(&millis(*took)));
                for item in items {
                    print_item(item, style);
                }
            }
        }
    }
}

fn print_item(item: &Value, style: Style) {
    let name = item["name"].as_str().unwrap_or("?");
    let locator = item["uri"].as_str().or(item["uriTemplate"].as_str()).map(|u| format!("  {u}")).unwrap_or_default();
    println!("  {}{}", style.cyan(name), style.dim(&locator));
    if let Some(description) = item["description"].as_str() {
        for line in description.lines() {
            println!("      {line}");
        }
    }
    if let Some(arguments) = item["arguments"].as_array() {
        for argument in arguments {
            let required = if argument["required"] == true { " (required)" } else { "" };
            let description = argument["description"].as_str().map(|d| format!(": {d}")).unwrap_or_default();
            println!("      - {}{required}{description}", argument["name"].as_str().unwrap_or("?"));
        }
    }
    for (key, label) in [("inputSchema", "input"), ("outputSchema", "output")] {
        if let Some(schema) = item.get(key).filter(|v| !v.is_null()) {
            println!("      {}", style.dim(label));
            for line in properties(schema) {
                println!("        {line}");
            }
        }
    }
    if let Some(annotations) = item.get("annotations").filter(|v| !v.is_null()) {
        println!("      {} {annotations}", style.dim("annotations"));
    }
}

/// A schema's properties, one line each: `name: type, range, required: description` (the
/// whole schema is in `--json`).
fn properties(schema: &Value) -> Vec<String> {
    let required: Vec<&str> = schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    let Some(properties) = schema["properties"].as_object() else {
        return vec![format!("{}", schema)];
    };
    properties
        .iter()
        .map(|(name, property)| {
            let mut facts = vec![kind(property)];
            let (min, max) = (&property["minimum"], &property["maximum"]);
            if !min.is_null() || !max.is_null() {
                let bound = |b: &Value| if b.is_null() { String::new() } else { b.to_string() };
                facts.push(format!("{}..{}", bound(min), bound(max)));
            }
            if required.contains(&name.as_str()) {
                facts.push("required".to_owned());
            }
            let description = property["description"].as_str().map(|d| format!(": {d}")).unwrap_or_default();
            format!("{name}: {}{description}", facts.join(", "))
        })
        .collect()
}

/// A property's type as a person reads it: `string`, `integer`, `one of a|b`, `array of string`.
fn kind(property: &Value) -> String {
    if let Some(values) = property["enum"].as_array() {
        let values: Vec<String> = values.iter().map(|v| v.as_str().map_or(v.to_string(), str::to_owned)).collect();
        return format!("one of {}", values.join("|"));
    }
    match &property["type"] {
        Value::String(kind) if kind == "array" => format!("array of {}", kind_of_items(&property["items"])),
        Value::String(kind) => kind.clone(),
        Value::Array(kinds) => kinds.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("|"),
        _ if property.get("$ref").is_some() => "object".to_owned(),
        _ => "any".to_owned(),
    }
}

fn kind_of_items(items: &Value) -> String {
    if items.is_object() { kind(items) } else { "any".to_owned() }
}
