//! Durations as people write them in attributes and messages.

use std::time::Duration;

/// A duration as messages show it: `30 s`, `1.5 s`, `250 ms`.
pub(crate) fn display(duration: Duration) -> String {
    let ms = duration.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else if ms >= 1000 {
        format!("{:.1} s", duration.as_secs_f64())
    } else {
        format!("{ms} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_naturally() {
        assert_eq!(display(Duration::from_secs(30)), "30 s");
        assert_eq!(display(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(display(Duration::from_millis(250)), "250 ms");
    }
}
