//! Wall-clock times as the protocol writes them (ISO 8601, UTC, milliseconds), without a
//! calendar crate: the days-to-civil conversion is a few lines of integer arithmetic.

use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch, now.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// `ms` (since the Unix epoch) as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub(crate) fn iso8601(ms: u64) -> String {
    let (days, in_day) = (ms / 86_400_000, ms % 86_400_000);
    let (year, month, day) = civil_from_days(days);
    let (hour, minute, second, milli) = (in_day / 3_600_000, in_day / 60_000 % 60, in_day / 1000 % 60, in_day % 1000);
    format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{milli:03}Z")
}

/// The (year, month, day) of the `days`-th day after 1970-01-01 (proleptic Gregorian; H.
/// Hinnant's algorithm, for days on or after the epoch).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::iso8601;

    #[test]
    fn times_read_as_iso_8601_in_utc() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        // 2000-02-29 (a leap day of a century leap year), 12:34:56.789.
        assert_eq!(iso8601(951_827_696_789), "2000-02-29T12:34:56.789Z");
        // 2026-12-31T23:59:59.999Z, the last moment of a year.
        assert_eq!(iso8601(1_798_761_599_999), "2026-12-31T23:59:59.999Z");
        assert_eq!(iso8601(1_798_761_600_000), "2027-01-01T00:00:00.000Z");
    }
}
