//! `--shapes`: one tool whose arguments and structured output use every shape of `Option`,
//! enum, `#[serde(skip_serializing_if)]`, `#[serde(default)]`, `flatten` and `rename`, so that
//! the tests can check each schema against what crosses the wire and against strict clients.

use mcp_runtime::{Json, Server, ToolDescriptor};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A plain enum: strings on the wire.
#[derive(Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Status {
    Open,
    Done,
}

/// An enum whose variants are documented (schemars writes a `oneOf` of `const`s).
#[derive(Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Priority {
    /// Whenever
    Low,
    /// Soon
    High,
}

/// An enum with data, internally tagged.
#[derive(Clone, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Recurrence {
    Once,
    Every { days: u32, until: Option<String> },
}

/// An enum with data, externally tagged (serde's default).
#[derive(Clone, Deserialize, Serialize, JsonSchema)]
enum Estimate {
    Hours(f64),
    Unknown,
}

#[derive(Clone, Deserialize, Serialize, JsonSchema)]
struct Person {
    name: String,
    email: Option<String>,
}

/// Flattened into [`Shapes`]: its fields sit beside the others.
#[derive(Clone, Deserialize, Serialize, JsonSchema)]
struct Stamps {
    created: String,
    updated: Option<String>,
}

/// Flattened as an `Option`: its fields are there or not, together.
#[derive(Clone, Deserialize, Serialize, JsonSchema)]
struct Archive {
    archived_at: String,
}

/// The tool's output: each field a shape serde writes its own way.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Shapes {
    /// Always written: `null` when `None`.
    due: Option<String>,
    count: Option<u32>,
    ratio: Option<f64>,
    done: Option<bool>,
    status: Option<Status>,
    priority: Option<Priority>,
    recurrence: Option<Recurrence>,
    estimate: Option<Estimate>,
    owner: Option<Person>,
    tags: Option<Vec<String>>,
    scores: Vec<Option<i32>>,
    /// Left out when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reviewer: Option<Person>,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_status: Option<Status>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    labels: Vec<String>,
    #[serde(skip_serializing_if = "String::is_empty")]
    summary: String,
    #[serde(default)]
    watchers: Vec<Person>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    parent: Option<u64>,
    #[serde(rename = "assignedTo")]
    assignee: Option<String>,
    #[serde(rename = "@type")]
    kind: Status,
    #[serde(flatten)]
    stamps: Stamps,
    #[serde(flatten)]
    archive: Option<Archive>,
    plain: Recurrence,
}

/// The tool's arguments: every shape of an optional parameter.
#[derive(Deserialize, JsonSchema)]
struct ShapesArgs {
    /// Whether every `Option` of the result is `Some`
    filled: bool,
    status: Option<Status>,
    priority: Option<Priority>,
    recurrence: Option<Recurrence>,
    estimate: Option<Estimate>,
    owner: Option<Person>,
    limit: Option<u32>,
    tags: Option<Vec<String>>,
    #[serde(default)]
    sort: Option<Status>,
    #[serde(rename = "assignedTo")]
    assignee: Option<String>,
}

/// `Some(value)` when the result is to be filled.
fn when<T>(filled: bool, value: T) -> Option<T> {
    filled.then_some(value)
}

fn shapes(args: ShapesArgs) -> Shapes {
    let person = || Person { name: "Ada".into(), email: args.filled.then(|| "ada@example.com".into()) };
    let filled = args.filled;
    Shapes {
        due: when(filled, "2026-12-24".into()),
        count: args.limit.or(when(filled, 3)),
        ratio: when(filled, 0.5),
        done: when(filled, false),
        status: args.status.or(when(filled, Status::Open)),
        priority: args.priority.or(when(filled, Priority::High)),
        recurrence: args.recurrence.or(when(filled, Recurrence::Every { days: 7, until: None })),
        estimate: args.estimate.or(when(filled, Estimate::Hours(1.5))),
        owner: args.owner.or(when(filled, person())),
        tags: args.tags.or(when(filled, vec!["home".into()])),
        scores: vec![Some(1), None],
        note: when(filled, "a note".into()),
        reviewer: when(filled, person()),
        next_status: args.sort.or(when(filled, Status::Done)),
        labels: if args.filled { vec!["urgent".into()] } else { Vec::new() },
        summary: if args.filled { "all set".into() } else { String::new() },
        watchers: vec![person()],
        parent: when(filled, 41),
        assignee: args.assignee.or(when(filled, "Grace".into())),
        kind: Status::Open,
        stamps: Stamps { created: "2026-12-01".into(), updated: when(filled, "2026-12-02".into()) },
        archive: when(filled, Archive { archived_at: "2026-12-03".into() }),
        plain: Recurrence::Once,
    }
}

pub(crate) fn add(server: Server) -> Server {
    server.tool(
        ToolDescriptor::new("shapes")
            .description("Structured output and arguments of every optional shape")
            .handler(|args: ShapesArgs| async move { Json(shapes(args)) }),
    )
}
