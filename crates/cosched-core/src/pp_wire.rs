//! The progress-period wire protocol (RDA §2.3's `pp_begin`/`pp_end`,
//! carried over a Unix stream socket). One request per line, one reply per
//! request:
//!
//! | request                                  | reply                    |
//! |------------------------------------------|--------------------------|
//! | `BEGIN <llc\|membw> <amount> <low\|medium\|high>` | `OK <id>` once admitted |
//! | `END <id>`                               | `OK`                     |
//! | anything else                            | `ERR <why>`              |
//!
//! `amount` is bytes (llc) or bytes per second (membw), a positive integer.
//! Lines are at most [`MAX_LINE`] bytes; the decoder never panics (fuzzed by
//! `fuzz/fuzz_targets/pp_decode.rs`).

use crate::policy::{Demand, Resource, Reuse};

/// Longest request line accepted, bytes (newline included).
pub const MAX_LINE: usize = 256;

/// Environment variable through which the runtime passes the socket path.
pub const SOCKET_ENV: &str = "COSCHED_PP_SOCKET";

/// A decoded request.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Request {
    /// `pp_begin`.
    Begin(Demand),
    /// `pp_end`.
    End(u64),
}

/// A request line the server refuses (its reply to the client names the problem).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum WireError {
    /// Longer than [`MAX_LINE`].
    #[error("line longer than {MAX_LINE} bytes")]
    TooLong,
    /// Not UTF-8 text.
    #[error("not UTF-8")]
    NotUtf8,
    /// A resource other than `llc` or `membw`.
    #[error("unknown resource `{got}` (llc, membw)")]
    Resource {
        /// The word received (clipped).
        got: String,
    },
    /// An amount that is not a whole number.
    #[error("amount `{got}` is not a positive integer")]
    Amount {
        /// The word received (clipped).
        got: String,
    },
    /// An amount of zero.
    #[error("amount must be positive")]
    ZeroAmount,
    /// A reuse other than `low`, `medium` or `high`.
    #[error("unknown reuse `{got}` (low, medium, high)")]
    Reuse {
        /// The word received (clipped).
        got: String,
    },
    /// A period id that is not a positive whole number.
    #[error("period id `{got}` is not a positive integer")]
    Id {
        /// The word received (clipped).
        got: String,
    },
    /// A known verb with the wrong number of arguments.
    #[error("{verb} takes {usage}")]
    Arity {
        /// `BEGIN` or `END`.
        verb: &'static str,
        /// Its arguments.
        usage: &'static str,
    },
    /// A verb other than `BEGIN` or `END`.
    #[error("unknown request `{got}` (BEGIN, END)")]
    Verb {
        /// The word received (clipped).
        got: String,
    },
}

/// Decode one request line (without or with its trailing newline).
pub fn decode(line: &[u8]) -> Result<Request, WireError> {
    if line.len() > MAX_LINE {
        return Err(WireError::TooLong);
    }
    let text = std::str::from_utf8(line).map_err(|_| WireError::NotUtf8)?;
    let mut it = text.trim_end_matches(['\n', '\r']).split(' ');
    let verb = it.next().unwrap_or("");
    let args: Vec<&str> = it.collect();
    match (verb, args.as_slice()) {
        ("BEGIN", [res, amount, reuse]) => {
            let resource = match *res {
                "llc" => Resource::Llc,
                "membw" => Resource::MemBw,
                r => return Err(WireError::Resource { got: clip(r).to_string() }),
            };
            let amount: u64 = amount.parse().map_err(|_| WireError::Amount { got: clip(amount).to_string() })?;
            if amount == 0 {
                return Err(WireError::ZeroAmount);
            }
            let reuse = match *reuse {
                "low" => Reuse::Low,
                "medium" => Reuse::Medium,
                "high" => Reuse::High,
                r => return Err(WireError::Reuse { got: clip(r).to_string() }),
            };
            Ok(Request::Begin(Demand { resource, amount: amount as f64, reuse }))
        }
        ("END", [id]) => match id.parse::<u64>() {
            Ok(id) if id > 0 => Ok(Request::End(id)),
            _ => Err(WireError::Id { got: clip(id).to_string() }),
        },
        ("BEGIN", _) => Err(WireError::Arity { verb: "BEGIN", usage: "3 arguments: resource amount reuse" }),
        ("END", _) => Err(WireError::Arity { verb: "END", usage: "1 argument: id" }),
        (v, _) => Err(WireError::Verb { got: clip(v).to_string() }),
    }
}

/// Encode a request (the clients' side; the C library writes the same bytes).
pub fn encode(r: &Request) -> String {
    match r {
        Request::Begin(d) => format!("BEGIN {} {} {}\n", d.resource.word(), d.amount as u64, d.reuse.word()),
        Request::End(id) => format!("END {id}\n"),
    }
}

fn clip(s: &str) -> String {
    s.chars().take(24).filter(|c| !c.is_control()).collect()
}

/// Cost of one `pp_begin` or `pp_end` call on cosched's real runtime, µs:
/// half the median round trip (begin + end, through the C library) of a
/// process alone under `rda-strict`, measured by `scripts/bench-pp` on the
/// 2-core KVM development guest on 2026-11-22 (137 µs round trip p50, p99
/// 192 µs; `docs/results/runtime/pp-cost.json`). The simulator's default
/// `--pp-cost-us`. It is the user-level runtime's cost (a socket to the
/// scheduler's server thread, the event loop, the policy's admission, and
/// pinning the tree back on its context), not the paper's in-kernel
/// implementation's, which the paper does not state (§4.3).
pub const MEASURED_PP_CALL_US: f64 = 69.0;
/// [`MEASURED_PP_CALL_US`] as the knobs' declarations write a default.
pub const MEASURED_PP_CALL_US_TEXT: &str = "69";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_errors() {
        let d = Demand { resource: Resource::Llc, amount: 16777216.0, reuse: Reuse::High };
        for r in [Request::Begin(d), Request::End(7)] {
            assert_eq!(decode(encode(&r).as_bytes()), Ok(r));
        }
        assert_eq!(
            decode(b"BEGIN membw 1000 low\r\n").unwrap(),
            Request::Begin(Demand { resource: Resource::MemBw, amount: 1000.0, reuse: Reuse::Low })
        );
        for (bad, why) in [
            (&b"BEGIN l3 5 high"[..], "unknown resource `l3` (llc, membw)"),
            (b"BEGIN llc 0 high", "amount must be positive"),
            (b"BEGIN llc -5 high", "amount `-5` is not a positive integer"),
            (b"BEGIN llc 5 lots", "unknown reuse `lots` (low, medium, high)"),
            (b"BEGIN llc 5", "BEGIN takes 3 arguments: resource amount reuse"),
            (b"END 0", "period id `0` is not a positive integer"),
            (b"END", "END takes 1 argument: id"),
            (b"\xff\xfe", "not UTF-8"),
            (b"", "unknown request `` (BEGIN, END)"),
        ] {
            assert_eq!(decode(bad).map_err(|e| e.to_string()), Err(why.to_string()));
        }
        assert!(decode(&[b'A'; MAX_LINE + 1]).is_err());
    }
}
