//! The progress-period server (RDA §2.3 for real programs): a Unix stream
//! socket whose path the runtime passes to its children in
//! [`COSCHED_PP_SOCKET`](super::proto::SOCKET_ENV). One thread accepts; one
//! thread per connection reads requests, forwards them to the scheduler's
//! event loop as [`PpMsg`]s and writes the replies. A `BEGIN` reply is
//! sent only when the policy admits the period, so the client blocks in
//! `pp_begin` exactly as the paper's API does.
//!
//! Robustness: the peer's pid comes from `SO_PEERCRED` (the event loop
//! rejects processes the run does not manage); malformed lines get an
//! `ERR` reply and the connection stays usable; a partial line that does not
//! complete within [`PARTIAL_TIMEOUT`] is dropped with the connection; a
//! client that vanishes (EOF or hang-up, even while waiting for admission)
//! is reported as [`PpMsg::Gone`] so its periods end.

use super::proto::{decode, Request, MAX_LINE};
use cosched_core::policy::Demand;
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a started request line may stay incomplete.
pub const PARTIAL_TIMEOUT: Duration = Duration::from_secs(5);

/// A request on its way to the event loop; `reply` takes the reply line.
#[derive(Debug)]
pub enum PpMsg {
    /// `pp_begin` from process `pid` over connection `conn`.
    Begin {
        /// Connection.
        conn: u64,
        /// Peer pid (`SO_PEERCRED`).
        pid: i32,
        /// Declared demand.
        demand: Demand,
        /// Where the reply goes.
        reply: Sender<String>,
    },
    /// `pp_end`.
    End {
        /// Connection.
        conn: u64,
        /// Peer pid.
        pid: i32,
        /// Period id.
        id: u64,
        /// Where the reply goes.
        reply: Sender<String>,
    },
    /// The connection closed (or its client vanished).
    Gone {
        /// Connection.
        conn: u64,
    },
}

/// The running server.
pub struct PpServer {
    path: PathBuf,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl PpServer {
    /// Listen at `dir/pp.sock` (mode 0600, owner only) and forward requests to `tx`.
    pub fn start(dir: &Path, tx: Sender<PpMsg>) -> io::Result<PpServer> {
        use std::os::unix::fs::PermissionsExt;
        std::fs::create_dir_all(dir)?;
        let path = dir.join("pp.sock");
        let _ = std::fs::remove_file(&path);
        let listener = UnixListener::bind(&path)?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
        let stop = Arc::new(AtomicBool::new(false));
        let stop2 = stop.clone();
        let accept = std::thread::Builder::new().name("pp-accept".into()).spawn(move || {
            let next = AtomicU64::new(1);
            while !stop2.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok(_) if stop2.load(Ordering::Relaxed) => break,
                    Ok((s, _)) => {
                        let conn = next.fetch_add(1, Ordering::Relaxed);
                        let tx = tx.clone();
                        let stop3 = stop2.clone();
                        let _ = std::thread::Builder::new().name(format!("pp-{conn}")).spawn(move || {
                            serve(conn, s, tx, stop3);
                        });
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(20)),
                }
            }
        })?;
        Ok(PpServer { path, stop, accept: Some(accept) })
    }

    /// The socket's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for PpServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // The accept thread blocks in accept(): wake it with one connection.
        let _ = UnixStream::connect(&self.path);
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The peer's pid (`SO_PEERCRED`).
pub fn peer_pid(s: &UnixStream) -> Option<i32> {
    // SAFETY: getsockopt writes at most `len` bytes into the ucred struct.
    unsafe {
        let mut cred: libc::ucred = std::mem::zeroed();
        let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
        let r = libc::getsockopt(
            s.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        );
        (r == 0).then_some(cred.pid)
    }
}

/// Whether the peer has hung up (without consuming data).
fn hung_up(s: &UnixStream) -> bool {
    let mut fds = libc::pollfd { fd: s.as_raw_fd(), events: libc::POLLRDHUP, revents: 0 };
    // SAFETY: one pollfd, zero timeout.
    let r = unsafe { libc::poll(&mut fds, 1, 0) };
    r > 0 && fds.revents & (libc::POLLRDHUP | libc::POLLHUP | libc::POLLERR) != 0
}

fn serve(conn: u64, mut s: UnixStream, tx: Sender<PpMsg>, stop: Arc<AtomicBool>) {
    let _ = s.set_read_timeout(Some(Duration::from_millis(200)));
    let pid = peer_pid(&s).unwrap_or(0);
    let mut buf: Vec<u8> = Vec::with_capacity(MAX_LINE);
    let mut started: Option<Instant> = None;
    let mut chunk = [0u8; 512];
    'conn: while !stop.load(Ordering::Relaxed) {
        match s.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                buf.extend_from_slice(&chunk[..n]);
                started.get_or_insert_with(Instant::now);
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
                ) => {}
            Err(_) => break,
        }
        while let Some(i) = buf.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = buf.drain(..=i).collect();
            let reply = match decode(&line) {
                Err(e) => format!("ERR {e}\n"),
                Ok(req) => {
                    let (rtx, rrx) = channel();
                    let msg = match req {
                        Request::Begin(demand) => PpMsg::Begin { conn, pid, demand, reply: rtx },
                        Request::End(id) => PpMsg::End { conn, pid, id, reply: rtx },
                    };
                    if tx.send(msg).is_err() {
                        break 'conn;
                    }
                    loop {
                        match rrx.recv_timeout(Duration::from_millis(100)) {
                            Ok(r) => break r,
                            Err(RecvTimeoutError::Timeout) if !hung_up(&s) && !stop.load(Ordering::Relaxed) => {}
                            Err(_) => break 'conn,
                        }
                    }
                }
            };
            if s.write_all(reply.as_bytes()).is_err() {
                break 'conn;
            }
        }
        if buf.is_empty() {
            started = None;
        } else if buf.len() > MAX_LINE || started.is_some_and(|t| t.elapsed() > PARTIAL_TIMEOUT) {
            let _ = s.write_all(b"ERR incomplete or overlong request; closing\n");
            break;
        }
    }
    let _ = tx.send(PpMsg::Gone { conn });
}
