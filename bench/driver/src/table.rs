//! The table: one row per measurement, a column per server, the ratios of ours to the others.

use std::fmt;

use crate::measure::{MANY_TOOLS, Measures, SERVERS, median};

/// A row of the stdio measurements.
#[derive(Clone, Copy)]
pub enum Row {
    Spawn,
    Sequential,
    Cpu,
    P50,
    P99,
    Pipelined,
    PipelinedRss,
    ManyToolsCall,
    ManyToolsList,
    NoopLayer,
    NoopLayerCpu,
}

impl Row {
    pub const ALL: [Row; 11] = [
        Row::Spawn,
        Row::Sequential,
        Row::Cpu,
        Row::P50,
        Row::P99,
        Row::Pipelined,
        Row::PipelinedRss,
        Row::ManyToolsCall,
        Row::ManyToolsList,
        Row::NoopLayer,
        Row::NoopLayerCpu,
    ];

    fn label(self) -> String {
        match self {
            Row::Spawn => "spawn → `initialize` result, ms".into(),
            Row::Sequential => "one request at a time, req/s".into(),
            Row::Cpu => "server CPU per request, one at a time, µs".into(),
            Row::P50 => "latency p50, one at a time, µs".into(),
            Row::P99 => "latency p99, one at a time, µs".into(),
            Row::Pipelined => "pipelined, req/s".into(),
            Row::PipelinedRss => "peak RSS, pipelined, MB".into(),
            Row::ManyToolsCall => format!("{MANY_TOOLS} tools: `tools/call` one at a time, req/s"),
            Row::ManyToolsList => format!("{MANY_TOOLS} tools: `tools/list` one at a time, req/s"),
            Row::NoopLayer => "one at a time through one no-op layer, req/s (compare: one request at a time)".into(),
            Row::NoopLayerCpu => "server CPU per request through one no-op layer, µs".into(),
        }
    }

    fn value(self, measures: &Measures) -> Option<f64> {
        match self {
            Row::Spawn => measures.spawn_ms,
            Row::Sequential => measures.sequential_per_s,
            Row::Cpu => measures.cpu_us_per_request,
            Row::P50 => measures.p50_us,
            Row::P99 => measures.p99_us,
            Row::Pipelined => measures.pipelined_per_s,
            Row::PipelinedRss => measures.pipelined_rss_mb,
            Row::ManyToolsCall => measures.many_tools_call_per_s,
            Row::ManyToolsList => measures.many_tools_list_per_s,
            Row::NoopLayer => measures.noop_layer_per_s,
            Row::NoopLayerCpu => measures.noop_layer_cpu_us,
        }
    }
}

/// Rows of medians, as a Markdown table.
pub struct Table {
    columns: [&'static str; SERVERS],
    rows: Vec<(String, [Option<f64>; SERVERS])>,
}

impl Table {
    pub fn new(columns: [&'static str; SERVERS]) -> Table {
        Table { columns, rows: Vec::new() }
    }

    /// The median of `row` over the rounds, per server.
    pub fn add(&mut self, row: Row, rounds: &[[Measures; SERVERS]]) {
        let cells = std::array::from_fn(|column| {
            let mut values: Vec<f64> = rounds.iter().filter_map(|round| row.value(&round[column])).collect();
            (!values.is_empty()).then(|| median(&mut values))
        });
        self.rows.push((row.label(), cells));
    }

    /// A row with a value for ours only.
    pub fn add_single(&mut self, label: &str, ours: f64) {
        self.rows.push((label.to_owned(), [Some(ours), None, None, None]));
    }

    /// A row with values for ours, rmcp and a floor of the transport (in the last column).
    pub fn add_with_floor(&mut self, label: &str, (ours, rmcp, floor): (f64, f64, f64)) {
        self.rows.push((label.to_owned(), [Some(ours), Some(rmcp), None, Some(floor)]));
    }

    /// A row with values for ours and rmcp.
    pub fn add_pair(&mut self, label: &str, (ours, rmcp): (f64, f64)) {
        self.rows.push((label.to_owned(), [Some(ours), Some(rmcp), None, None]));
    }
}

impl fmt::Display for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [ours, rmcp, raw, floor] = self.columns;
        writeln!(f, "| | {ours} | {rmcp} | {raw} | {floor} | ours ÷ {rmcp} | ours ÷ {raw} | ours ÷ {floor} |")?;
        writeln!(f, "|---|---:|---:|---:|---:|---:|---:|---:|")?;
        for (label, [ours, rmcp, raw, floor]) in &self.rows {
            let ratio = |theirs: &Option<f64>| match (ours, theirs) {
                (Some(a), Some(b)) if *b != 0.0 => format!("{:.2}×", a / b),
                _ => "–".to_owned(),
            };
            writeln!(
                f,
                "| {label} | {} | {} | {} | {} | {} | {} | {} |",
                cell(*ours),
                cell(*rmcp),
                cell(*raw),
                cell(*floor),
                ratio(rmcp),
                ratio(raw),
                ratio(floor)
            )?;
        }
        Ok(())
    }
}

/// A value with three significant digits at most, thousands separated.
fn cell(value: Option<f64>) -> String {
    let Some(value) = value else { return "–".to_owned() };
    if value >= 1000.0 {
        let whole = value.round() as u64;
        let digits = whole.to_string();
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        out
    } else if value >= 100.0 {
        format!("{value:.0}")
    } else if value >= 10.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    }
}
