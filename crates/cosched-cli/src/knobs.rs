//! Flags parsed into a subcommand's arguments without a whole command line
//! (the CLI's own tests).

use crate::error::RunError;
use clap::Args as ClapArgs;

/// Parse `flags` (no program name) into `T`, as the command line would; a
/// refusal is one line (clap's message without usage).
pub fn parse_flags<T: ClapArgs>(flags: &[String]) -> Result<T, RunError> {
    let cmd = T::augment_args(clap::Command::new("cosched").no_binary_name(true).allow_negative_numbers(true));
    let m = cmd.try_get_matches_from(flags).map_err(|e| {
        let text = e.render().to_string();
        let line: Vec<&str> = text
            .lines()
            .map(str::trim)
            .take_while(|l| !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more information"))
            .collect();
        RunError::option(line.join(" ").trim_start_matches("error: ").to_string())
    })?;
    T::from_arg_matches(&m).map_err(|e| RunError::option(e.to_string().trim().trim_start_matches("error: ")))
}
