//! Timestamps as RFC 3339 UTC with milliseconds, and `--since 1h` parsing.
//!
//! Done by hand rather than with `chrono` / `time`: the audit log needs one
//! fixed format, and the civil-date arithmetic is a dozen lines (Howard
//! Hinnant's `days_from_civil` / `civil_from_days`).

use std::{
    fmt,
    str::FromStr,
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::AuditError;

const MS_PER_DAY: u64 = 86_400_000;

/// A point in time, to the millisecond, never before 1970.
///
/// Shown and serialized as RFC 3339 in UTC with exactly three fraction
/// digits: `2026-05-01T12:34:56.789Z`. That form has a fixed width, so
/// timestamps sort as text in the same order as in time (the SQLite sink
/// and the `since` filter rely on it). Parsing accepts `Z` with 0 to 9
/// fraction digits (extra digits are truncated to milliseconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp {
    millis: u64,
}

impl Timestamp {
    /// The current time.
    pub fn now() -> Self {
        Self::from_system_time(SystemTime::now())
    }

    /// `time` truncated to the millisecond; times before 1970 become
    /// 1970-01-01T00:00:00.000Z.
    pub fn from_system_time(time: SystemTime) -> Self {
        let millis = time
            .duration_since(UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0);
        Self { millis }
    }

    /// The time `millis` milliseconds after 1970-01-01T00:00:00Z.
    pub fn from_unix_millis(millis: u64) -> Self {
        Self { millis }
    }

    /// Milliseconds since 1970-01-01T00:00:00Z.
    pub fn unix_millis(self) -> u64 {
        self.millis
    }

    /// This time minus `ago`, clamped at 1970.
    pub fn saturating_sub(self, ago: Duration) -> Self {
        let ago = u64::try_from(ago.as_millis()).unwrap_or(u64::MAX);
        Self {
            millis: self.millis.saturating_sub(ago),
        }
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let days = self.millis / MS_PER_DAY;
        let in_day = self.millis % MS_PER_DAY;
        let (year, month, day) = civil_from_days(days);
        write!(
            f,
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
            in_day / 3_600_000,
            in_day / 60_000 % 60,
            in_day / 1000 % 60,
            in_day % 1000,
        )
    }
}

impl FromStr for Timestamp {
    type Err = AuditError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_rfc3339_utc(s).ok_or_else(|| AuditError::InvalidTimestamp {
            input: s.chars().take(64).collect(),
        })
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// `YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z`, years 1970 to 9999.
fn parse_rfc3339_utc(s: &str) -> Option<Timestamp> {
    let b = s.as_bytes();
    if b.len() < 20 || !matches!(b.last(), Some(b'Z' | b'z')) {
        return None;
    }
    let num = |range: std::ops::Range<usize>| -> Option<u64> {
        let part = s.get(range)?;
        if part.bytes().all(|c| c.is_ascii_digit()) {
            part.parse().ok()
        } else {
            None
        }
    };
    let seps = [(4, b'-'), (7, b'-'), (13, b':'), (16, b':')];
    if seps.iter().any(|&(i, c)| b[i] != c) || !matches!(b[10], b'T' | b't') {
        return None;
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    // Bytes 17..19 are ASCII digits and the last byte is `Z`, so both
    // ends of this slice are char boundaries.
    let millis = match &s[19..s.len() - 1] {
        "" => 0,
        fraction => {
            let digits = fraction.strip_prefix('.')?;
            if digits.is_empty() || digits.len() > 9 || !digits.bytes().all(|c| c.is_ascii_digit())
            {
                return None;
            }
            let ms: String = digits.chars().chain("00".chars()).take(3).collect();
            ms.parse().ok()?
        }
    };
    if year < 1970
        || !(1..=12).contains(&month)
        || day < 1
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let in_day = ((hour * 60 + minute) * 60 + second) * 1000 + millis;
    Some(Timestamp {
        millis: days * MS_PER_DAY + in_day,
    })
}

fn days_in_month(year: u64, month: u64) -> u64 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (year >= 1970).
fn days_from_civil(year: u64, month: u64, day: u64) -> u64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y / 400;
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date `days` days after 1970-01-01, as (year, month, day).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

/// A look-back window as the CLI takes it (`toolbridge audit --since 1h`):
/// a whole number followed by one unit, `s` (seconds), `m` (minutes), `h`
/// (hours), `d` (days) or `w` (weeks); surrounding whitespace is ignored.
///
/// # Errors
/// [`AuditError::InvalidSince`] when `input` is not a number and a unit, or
/// overflows.
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use toolbridge::audit::parse_since;
/// assert_eq!(parse_since("1h")?, Duration::from_secs(3600));
/// assert_eq!(parse_since("30m")?, Duration::from_secs(1800));
/// assert!(parse_since("1 hour").is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn parse_since(input: &str) -> Result<Duration, AuditError> {
    let invalid = || AuditError::InvalidSince {
        input: input.chars().take(64).collect(),
    };
    let text = input.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .ok_or_else(invalid)?;
    let (number, unit) = text.split_at(split);
    let number: u64 = number.parse().map_err(|_| invalid())?;
    let unit_secs = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 604_800,
        _ => return Err(invalid()),
    };
    number
        .checked_mul(unit_secs)
        .map(Duration::from_secs)
        .ok_or_else(invalid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_format_as_rfc3339_utc_with_millis() {
        assert_eq!(
            Timestamp::from_unix_millis(0).to_string(),
            "1970-01-01T00:00:00.000Z"
        );
        assert_eq!(
            Timestamp::from_unix_millis(951_782_400_007).to_string(),
            "2000-02-29T00:00:00.007Z"
        );
        let t = UNIX_EPOCH + Duration::from_micros(1_777_638_896_789_999);
        assert_eq!(
            Timestamp::from_system_time(t).to_string(),
            "2026-05-01T12:34:56.789Z"
        );
        assert_eq!(
            Timestamp::from_unix_millis(253_402_300_799_999).to_string(),
            "9999-12-31T23:59:59.999Z"
        );
    }

    #[test]
    fn timestamps_round_trip_through_text_for_every_day_over_centuries() {
        for day in (0..150_000u64).step_by(13) {
            let t = Timestamp::from_unix_millis(day * MS_PER_DAY + day % MS_PER_DAY);
            assert_eq!(t.to_string().parse::<Timestamp>().ok(), Some(t), "{t}");
        }
    }

    #[test]
    fn timestamp_parsing_accepts_fractions_and_rejects_garbage() {
        let p = |s: &str| s.parse::<Timestamp>().ok().map(Timestamp::unix_millis);
        assert_eq!(p("1970-01-01T00:00:01Z"), Some(1000));
        assert_eq!(p("1970-01-01T00:00:01.5Z"), Some(1500));
        assert_eq!(p("1970-01-01T00:00:01.123456789Z"), Some(1123));
        for bad in [
            "",
            "1970-01-01 00:00:01Z",
            "1970-01-01T00:00:01+01:00",
            "1970-02-30T00:00:00Z",
            "2023-02-29T00:00:00Z",
            "1970-01-01T24:00:00Z",
            "1969-12-31T23:59:59Z",
            "1970-01-01T00:00:01.Z",
            "1970-01-01T00:00:01.1234567890Z",
            "197a-01-01T00:00:00Z",
        ] {
            assert_eq!(p(bad), None, "{bad}");
        }
    }

    #[test]
    fn timestamps_sort_as_text_in_time_order() {
        let a = Timestamp::from_unix_millis(999).to_string();
        let b = Timestamp::from_unix_millis(1000).to_string();
        let c = Timestamp::from_unix_millis(86_400_000 * 400).to_string();
        assert!(a < b && b < c);
    }

    #[test]
    fn since_takes_a_number_and_one_unit() {
        assert_eq!(parse_since("45s").ok(), Some(Duration::from_secs(45)));
        assert_eq!(parse_since("30m").ok(), Some(Duration::from_secs(1800)));
        assert_eq!(parse_since(" 1h ").ok(), Some(Duration::from_secs(3600)));
        assert_eq!(parse_since("2d").ok(), Some(Duration::from_secs(172_800)));
        assert_eq!(parse_since("1w").ok(), Some(Duration::from_secs(604_800)));
        assert_eq!(parse_since("0s").ok(), Some(Duration::ZERO));
        for bad in [
            "",
            "h",
            "1",
            "1 h",
            "1hour",
            "-1h",
            "1.5h",
            "1H",
            "1h30m",
            "99999999999999999999d",
        ] {
            assert!(
                matches!(parse_since(bad), Err(AuditError::InvalidSince { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn saturating_sub_clamps_at_the_epoch() {
        let t = Timestamp::from_unix_millis(5000);
        assert_eq!(t.saturating_sub(Duration::from_secs(2)).unix_millis(), 3000);
        assert_eq!(t.saturating_sub(Duration::from_secs(60)).unix_millis(), 0);
    }
}
