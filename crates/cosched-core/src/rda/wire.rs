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

/// Decode one request line (without or with its trailing newline).
pub fn decode(line: &[u8]) -> Result<Request, String> {
    if line.len() > MAX_LINE {
        return Err(format!("line longer than {MAX_LINE} bytes"));
    }
    let text = std::str::from_utf8(line).map_err(|_| "not UTF-8".to_string())?;
    let mut it = text.trim_end_matches(['\n', '\r']).split(' ');
    let verb = it.next().unwrap_or("");
    let args: Vec<&str> = it.collect();
    match (verb, args.as_slice()) {
        ("BEGIN", [res, amount, reuse]) => {
            let resource = match *res {
                "llc" => Resource::Llc,
                "membw" => Resource::MemBw,
                r => return Err(format!("unknown resource `{}` (llc, membw)", clip(r))),
            };
            let amount: u64 =
                amount.parse().map_err(|_| format!("amount `{}` is not a positive integer", clip(amount)))?;
            if amount == 0 {
                return Err("amount must be positive".into());
            }
            let reuse = match *reuse {
                "low" => Reuse::Low,
                "medium" => Reuse::Medium,
                "high" => Reuse::High,
                r => return Err(format!("unknown reuse `{}` (low, medium, high)", clip(r))),
            };
            Ok(Request::Begin(Demand { resource, amount: amount as f64, reuse }))
        }
        ("END", [id]) => match id.parse::<u64>() {
            Ok(id) if id > 0 => Ok(Request::End(id)),
            _ => Err(format!("period id `{}` is not a positive integer", clip(id))),
        },
        ("BEGIN", _) => Err("BEGIN takes 3 arguments: resource amount reuse".into()),
        ("END", _) => Err("END takes 1 argument: id".into()),
        (v, _) => Err(format!("unknown request `{}` (BEGIN, END)", clip(v))),
    }
}

/// Encode a request (the clients' side; the C library writes the same bytes).
pub fn encode(r: &Request) -> String {
    match r {
        Request::Begin(d) => {
            let res = match d.resource {
                Resource::Llc => "llc",
                Resource::MemBw => "membw",
            };
            let reuse = match d.reuse {
                Reuse::Low => "low",
                Reuse::Medium => "medium",
                Reuse::High => "high",
            };
            format!("BEGIN {res} {} {reuse}\n", d.amount as u64)
        }
        Request::End(id) => format!("END {id}\n"),
    }
}

fn clip(s: &str) -> String {
    s.chars().take(24).filter(|c| !c.is_control()).collect()
}

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
            assert_eq!(decode(bad), Err(why.to_string()));
        }
        assert!(decode(&[b'A'; MAX_LINE + 1]).is_err());
    }
}
