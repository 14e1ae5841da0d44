//! What the command lines of the benchmark programs share: reading a flag's value, numbers and
//! seconds, and turning the outcome of a run into an exit code.

use std::process::ExitCode;
use std::time::Duration;

/// The value after `flag`, from `args`.
pub fn value<'a>(
    flag: &str,
    args: &mut impl Iterator<Item = &'a String>,
) -> Result<String, String> {
    args.next()
        .cloned()
        .ok_or_else(|| format!("{flag} needs a value"))
}

/// A whole number given to `flag`.
pub fn number(flag: &str, value: &str) -> Result<usize, String> {
    value
        .parse::<usize>()
        .map_err(|e| format!("{flag} {value:?}: {e}"))
}

/// A number of seconds (0 or more) given to `flag`.
pub fn seconds(flag: &str, value: &str) -> Result<Duration, String> {
    value
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| format!("{flag} takes seconds, not {value:?}"))
}

/// The parsed options, or exit code 2 after printing the error and `usage`.
pub fn options<O>(program: &str, usage: &str, parsed: Result<O, String>) -> Result<O, ExitCode> {
    parsed.map_err(|e| {
        eprintln!("{program}: {e}\n{usage}");
        ExitCode::from(2)
    })
}

/// The exit code of a run: success, or failure after printing the error.
pub fn exit(program: &str, outcome: Result<(), String>) -> ExitCode {
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{program}: {e}");
            ExitCode::FAILURE
        }
    }
}
