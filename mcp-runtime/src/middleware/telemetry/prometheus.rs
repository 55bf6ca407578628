//! The metrics as Prometheus text (exposition format 0.0.4): each histogram as `_bucket`
//! (cumulative, up to `+Inf`), `_sum` and `_count`, its attributes as labels, names with `.`
//! as `_` and the unit as a suffix (`mcp.server.operation.duration` in seconds is
//! `mcp_server_operation_duration_seconds`).

use std::fmt::Write as _;

use opentelemetry::KeyValue;
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData, ResourceMetrics};

pub(super) fn render(metrics: &ResourceMetrics) -> String {
    let mut out = String::new();
    for scope in metrics.scope_metrics() {
        for metric in scope.metrics() {
            let AggregatedMetrics::F64(MetricData::Histogram(histogram)) = metric.data() else { continue };
            let name = metric_name(metric.name(), metric.unit());
            let _ = writeln!(out, "# HELP {name} {}", metric.description().replace('\n', " "));
            let _ = writeln!(out, "# TYPE {name} histogram");
            for point in histogram.data_points() {
                let labels = labels(point.attributes());
                let mut cumulative = 0;
                for (bound, count) in point.bounds().zip(point.bucket_counts()) {
                    cumulative += count;
                    let _ = writeln!(out, "{name}_bucket{{{}}} {cumulative}", with_le(&labels, &bound.to_string()));
                }
                let _ = writeln!(out, "{name}_bucket{{{}}} {}", with_le(&labels, "+Inf"), point.count());
                let _ = writeln!(out, "{name}_sum{{{labels}}} {}", point.sum());
                let _ = writeln!(out, "{name}_count{{{labels}}} {}", point.count());
            }
        }
    }
    out
}

fn metric_name(name: &str, unit: &str) -> String {
    let mut name = sanitize(name);
    let suffix = match unit {
        "s" => "_seconds",
        "ms" => "_milliseconds",
        "By" => "_bytes",
        _ => "",
    };
    if !name.ends_with(suffix) {
        name.push_str(suffix);
    }
    name
}

/// A name Prometheus accepts: letters, digits and `_`, not starting with a digit.
fn sanitize(name: &str) -> String {
    let mut out: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

fn labels<'a>(attributes: impl Iterator<Item = &'a KeyValue>) -> String {
    let mut pairs: Vec<(String, String)> =
        attributes.map(|kv| (sanitize(kv.key.as_str()), escape(&kv.value.as_str()))).collect();
    pairs.sort();
    pairs.iter().map(|(k, v)| format!("{k}=\"{v}\"")).collect::<Vec<_>>().join(",")
}

fn with_le(labels: &str, le: &str) -> String {
    match labels.is_empty() {
        true => format!("le=\"{le}\""),
        false => format!("{labels},le=\"{le}\""),
    }
}

fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_labels_become_what_prometheus_accepts() {
        assert_eq!(metric_name("mcp.server.operation.duration", "s"), "mcp_server_operation_duration_seconds");
        assert_eq!(sanitize("gen_ai.tool.name"), "gen_ai_tool_name");
        assert_eq!(sanitize("9lives"), "_9lives");
        let kvs = [KeyValue::new("mcp.method.name", "tools/call"), KeyValue::new("a", "say \"hi\"\n")];
        assert_eq!(labels(kvs.iter()), r#"a="say \"hi\"\n",mcp_method_name="tools/call""#);
        assert_eq!(with_le("", "+Inf"), r#"le="+Inf""#);
    }
}
