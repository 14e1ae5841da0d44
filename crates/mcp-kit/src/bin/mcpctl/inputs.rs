//! VS Code's `inputs`: the values of a server's `${input:ID}` placeholders, from `--input
//! ID=VALUE`, else asked on the terminal (a `password` input without echo), else an error
//! saying which `--input` to pass.

use std::collections::BTreeMap;
use std::io::{BufRead, IsTerminal, Write};

use mcp_kit::arguments::split_pair;
use mcp_kit::{Config, Input};

use crate::exit::usage;

/// The values of the inputs `server` uses: `given` (`--input` pairs), then asked on the
/// terminal for the others.
pub(crate) fn values(
    config: &Config,
    server: &str,
    given: &[String],
) -> anyhow::Result<BTreeMap<String, String>> {
    let mut values = BTreeMap::new();
    for pair in given {
        let (id, value) = split_pair(pair, "--input").map_err(usage)?;
        values.insert(id.to_owned(), value.to_owned());
    }
    let Some(configured) = config.servers.get(server) else {
        return Ok(values);
    };
    let missing: Vec<String> = configured
        .inputs_used()
        .into_iter()
        .filter(|id| !values.contains_key(id))
        .collect();
    if missing.is_empty() {
        return Ok(values);
    }
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    if !interactive {
        let flags: Vec<String> = missing
            .iter()
            .map(|id| format!("--input {id}=VALUE"))
            .collect();
        return Err(usage(format!(
            "server `{server}` needs the input{} {} (`${{input:…}}` in its configuration): pass {}",
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", "),
            flags.join(" ")
        )));
    }
    for id in missing {
        let spec = config.inputs.iter().find(|i| i.id == id);
        let value = ask(&id, spec)?;
        values.insert(id, value);
    }
    Ok(values)
}

/// Asks for one input on the terminal.
fn ask(id: &str, spec: Option<&Input>) -> anyhow::Result<String> {
    let mut prompt = spec
        .and_then(|s| s.description.clone())
        .map_or_else(|| id.to_owned(), |d| format!("{d} ({id})"));
    let options = spec.map(|s| s.options.as_slice()).unwrap_or_default();
    for (i, option) in options.iter().enumerate() {
        prompt.push_str(&format!("\n  {}) {option}", i + 1));
    }
    let default = spec.and_then(|s| s.default.clone());
    if let Some(default) = &default {
        prompt.push_str(&format!(" [default: {default}]"));
    }
    let prompt = crate::output::sanitize(&format!("{prompt}\n> "));
    let answer = if spec.is_some_and(|s| s.password) {
        rpassword::prompt_password(prompt)
            .map_err(|e| usage(format!("cannot read input `{id}`: {e}")))?
    } else {
        let mut err = std::io::stderr().lock();
        write!(err, "{prompt}")?;
        err.flush()?;
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line)?;
        line.trim_end_matches(['\n', '\r']).to_owned()
    };
    if answer.is_empty() {
        return default.ok_or_else(|| usage(format!("input `{id}` needs a value")));
    }
    if options.is_empty() {
        return Ok(answer);
    }
    let values: Vec<&str> = options.iter().map(String::as_str).collect();
    crate::form::pick(&values, &answer)
        .map(str::to_owned)
        .ok_or_else(|| {
            usage(format!(
                "input `{id}`: `{answer}` is not one of the choices"
            ))
        })
}
