//! The client's side of one connection, as `sqale serve` reads and writes it ([`ClientIo`]).
//!
//! - **A client that closes its sending side still gets its answer.** A client may send its
//!   request and then close its side of the connection (`shutdown(SHUT_WR)`: `nc -N`, some
//!   proxies) while it waits. hyper takes that end of input for a client that left, and drops
//!   the answer; here, while a request is under way, the end of input is kept from hyper until
//!   the answer has been sent. A body cut short by the end of input is an error of the body's
//!   ([`WatchedBody`]), answered 400.
//! - **A client that left is noticed when the server writes.** TCP shows a client that closed
//!   its side and one that went away the same way (an end of input) until the server sends it
//!   something: a client that went away answers with a reset, and the next write fails. So an
//!   event stream whose client's input ended sends two comments at once ([`probe_when_closed`]):
//!   a client that left is gone within a fraction of a second, its episode cancelled. A reset
//!   (a client that closed with unread data, or with `SO_LINGER` 0) ends the connection at once.
//!   A JSON answer has nothing to send before it is done: its client is taken to be waiting.
//! - **A connection closed before its request was read whole still delivers its answer.** A 413
//!   (or a 408) closes the connection with the client's body unread, and a socket closed with
//!   unread input resets the connection, which can take the answer with it. So a connection's
//!   closing sends the end of the server's output, then reads and drops what the client still
//!   sends until it closes too, for at most [`LINGER`] (as web servers' "lingering close").
//! - **hyper's own answers say what is wrong.** A request hyper cannot parse (a byte HTTP does
//!   not allow, headers over the limit) gets its automatic 400, 414 or 431 with no body; here
//!   that answer is given a JSON body like every other error of the service's
//!   ([`with_error_body`]).

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::task::{ready, Context, Poll, Waker};
use std::time::Duration;

use axum::response::sse::Event;
use futures_util::stream::{self, Stream, StreamExt};
use hyper::body::{Body, Bytes, Frame, Incoming, SizeHint};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::Notify;

/// The longest a closing connection waits for its client to close too, reading and dropping
/// what it still sends.
pub const LINGER: Duration = Duration::from_secs(2);

/// How one connection's client stands: shared by its IO, its service and its requests.
#[derive(Debug, Default)]
pub struct Client {
    /// Requests under way: from the request's head to the end of its response's body.
    pub(super) busy: AtomicUsize,
    /// The client's input has ended (it closed its sending side, or left).
    input_ended: AtomicBool,
    /// Woken when the input ends.
    ended: Notify,
    /// hyper's read, held back after the input ended while an answer is under way.
    reader: Mutex<Option<Waker>>,
    /// The reader of a request's body, waiting for more of it: woken when the input ends.
    body_reader: Mutex<Option<Waker>>,
}

/// `waker`, kept in `slot` to be woken.
fn keep(slot: &Mutex<Option<Waker>>, waker: &Waker) {
    *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(waker.clone());
}

/// Wakes what `slot` keeps.
fn wake(slot: &Mutex<Option<Waker>>) {
    if let Some(w) = slot.lock().unwrap_or_else(|e| e.into_inner()).take() {
        w.wake();
    }
}

impl Client {
    /// Whether a request is under way: an end of input now is the client closing its sending
    /// side, and hyper is not told until the answer has been sent.
    fn answering(&self) -> bool {
        self.busy.load(Ordering::SeqCst) > 0
    }

    /// A request begins (its head has been read).
    pub(super) fn request_started(&self) {
        self.busy.fetch_add(1, Ordering::SeqCst);
    }

    /// A request's answer has been sent (or abandoned); returns whether the connection is
    /// now quiet. hyper's held-back read is woken, to see the end of input if there was one.
    pub(super) fn request_ended(&self) -> bool {
        let quiet = self.busy.fetch_sub(1, Ordering::SeqCst) == 1;
        wake(&self.reader);
        quiet
    }

    /// Resolves once the client's input has ended.
    pub async fn input_ended(&self) {
        loop {
            let notified = self.ended.notified();
            let mut notified = std::pin::pin!(notified);
            notified.as_mut().enable();
            if self.input_ended.load(Ordering::SeqCst) {
                return;
            }
            notified.await;
        }
    }
}

/// The client of the connection a request came on, in its extensions (absent when the router
/// is served some other way).
#[derive(Debug, Clone)]
pub struct ClientSide(pub std::sync::Arc<Client>);

/// A request's body that ends in an error when the client's input ends before it does: hyper,
/// kept from seeing that end while the request is under way, would wait for the rest.
pub(super) struct WatchedBody {
    inner: Incoming,
    client: std::sync::Arc<Client>,
}

impl WatchedBody {
    /// `inner`, read from `client`'s connection.
    pub(super) fn new(inner: Incoming, client: std::sync::Arc<Client>) -> Self {
        WatchedBody { inner, client }
    }
}

/// Why a request's body could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BodyError {
    /// hyper's error.
    #[error(transparent)]
    Hyper(#[from] hyper::Error),
    /// The client closed its side of the connection before the whole body arrived.
    #[error("the client closed its side of the connection before the whole body arrived")]
    Cut,
}

impl Body for WatchedBody {
    type Data = Bytes;
    type Error = BodyError;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, BodyError>>> {
        let this = self.get_mut();
        keep(&this.client.body_reader, cx.waker());
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(frame) => Poll::Ready(frame.map(|f| f.map_err(BodyError::from))),
            // Everything the client sent before its input ended has reached the body: hyper
            // reads the end only once it has passed on what came before.
            Poll::Pending if this.client.input_ended.load(Ordering::SeqCst) => Poll::Ready(Some(Err(BodyError::Cut))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// A connection's socket as hyper reads and writes it (see the module's doc).
pub(super) struct ClientIo {
    stream: TcpStream,
    client: std::sync::Arc<Client>,
    /// Bytes sent in place of what hyper wrote (its automatic error answer with a body), and
    /// how many of them are sent.
    replacement: Vec<u8>,
    sent: usize,
    /// Once closing: until when it reads and drops what the client still sends.
    linger: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl ClientIo {
    /// `stream`, whose client is `client`.
    pub(super) fn new(stream: TcpStream, client: std::sync::Arc<Client>) -> Self {
        ClientIo { stream, client, replacement: Vec::new(), sent: 0, linger: None }
    }

    /// Sends what is left of the replacement.
    fn poll_replacement(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.sent < self.replacement.len() {
            let n = ready!(Pin::new(&mut self.stream).poll_write(cx, &self.replacement[self.sent..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.sent += n;
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncRead for ClientIo {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let client = &this.client;
        if !client.input_ended.load(Ordering::SeqCst) {
            let before = buf.filled().len();
            ready!(Pin::new(&mut this.stream).poll_read(cx, buf))?;
            if buf.filled().len() > before || buf.remaining() == 0 {
                return Poll::Ready(Ok(()));
            }
            client.input_ended.store(true, Ordering::SeqCst);
            client.ended.notify_waiters();
            wake(&client.body_reader);
        }
        // The input has ended. While an answer is under way, hyper waits as for more input,
        // and reads the end once the answer has been sent.
        if client.answering() {
            keep(&client.reader, cx.waker());
            if client.answering() {
                return Poll::Pending;
            }
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for ClientIo {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.poll_replacement(cx))?;
        if let Some(answer) = with_error_body(buf) {
            this.replacement = answer;
            this.sent = 0;
            // hyper's bytes count as written; flushing sends what is left of ours.
            if let Poll::Ready(Err(e)) = this.poll_replacement(cx) {
                return Poll::Ready(Err(e));
            }
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut this.stream).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_replacement(cx))?;
        Pin::new(&mut this.stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_replacement(cx))?;
        let linger = match &mut this.linger {
            Some(linger) => linger,
            None => {
                ready!(Pin::new(&mut this.stream).poll_shutdown(cx))?;
                this.linger.insert(Box::pin(tokio::time::sleep(LINGER)))
            }
        };
        // The output has ended; what the client still sends is read and dropped until it closes
        // too (or errs, or the time is up), so that closing sends no reset.
        let mut scratch = [0u8; 4096];
        loop {
            if linger.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Ok(()));
            }
            let mut buf = ReadBuf::new(&mut scratch);
            match Pin::new(&mut this.stream).poll_read(cx, &mut buf) {
                Poll::Ready(Ok(())) if !buf.filled().is_empty() => continue,
                Poll::Ready(_) => return Poll::Ready(Ok(())),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

/// When `written` is hyper's automatic answer to a request it could not parse (a head alone,
/// status 400, 414 or 431, without a `Content-Type`: every answer of the router's has one), the
/// same answer with a JSON body that says what is wrong, as the service's other errors do.
pub fn with_error_body(written: &[u8]) -> Option<Vec<u8>> {
    let head = written.strip_suffix(b"\r\n\r\n")?;
    let head = std::str::from_utf8(head).ok()?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next()?;
    let rest = status_line.strip_prefix("HTTP/1.")?;
    let status: u16 = rest.get(2..5)?.parse().ok()?;
    let message = match status {
        400 => "the request is not valid HTTP/1.1: its method, target or version, or a header's name or value, has a \
             character HTTP does not allow (a byte such as 0xff, a control character, or a space where none may be)"
            .to_string(),
        414 => "the request's target (its path and query) is too long: send a shorter URL".to_string(),
        431 => format!(
            "the request's line and headers are over the server's limit of {} bytes or {} headers: send fewer or \
             shorter headers",
            super::conn::MAX_HEADER_BYTES,
            super::conn::MAX_HEADERS
        ),
        _ => return None,
    };
    let mut kept = Vec::new();
    for line in lines {
        let name = line.split(':').next().unwrap_or_default().trim().to_ascii_lowercase();
        match name.as_str() {
            "content-type" => return None,
            "content-length" | "connection" | "transfer-encoding" => {}
            _ => kept.push(line),
        }
    }
    let body = serde_json::json!({ "error": message, "status": status }).to_string();
    let mut out = format!("{status_line}\r\n");
    for line in kept {
        out.push_str(line);
        out.push_str("\r\n");
    }
    out.push_str(&format!(
        "content-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    ));
    Some(out.into_bytes())
}

/// `events`, and once `client`'s input has ended two comments (at once and 100 ms later): a
/// client that left answers the first with a reset and the second write fails, which ends the
/// connection and drops the stream (and so cancels its episode). Ends when `events` ends.
pub fn probe_when_closed<S>(events: S, client: Option<ClientSide>) -> impl Stream<Item = Result<Event, Infallible>>
where
    S: Stream<Item = Result<Event, Infallible>> + Send + 'static,
{
    let probes = stream::once(async move {
        match client {
            Some(c) => c.0.input_ended().await,
            None => std::future::pending().await,
        }
    })
    .flat_map(|()| {
        stream::iter([Duration::ZERO, Duration::from_millis(100)]).then(|wait| async move {
            tokio::time::sleep(wait).await;
            Some(Ok(Event::default().comment("")))
        })
    });
    // `None` marks the end of `events`, which ends the whole.
    let events = events.map(Some).chain(stream::once(std::future::ready(None)));
    stream::select(events, probes).take_while(|e| std::future::ready(e.is_some())).filter_map(std::future::ready)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hypers_own_errors_get_a_json_body() {
        let hyper = b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\ndate: x\r\n\r\n";
        let out = String::from_utf8(with_error_body(hyper).unwrap()).unwrap();
        let (head, body) = out.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\ndate: x\r\n"), "{head}");
        assert!(head.contains("content-type: application/json") && head.contains("connection: close"), "{head}");
        assert!(head.contains(&format!("content-length: {}", body.len())), "{head}");
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(v["status"], 431);
        assert!(v["error"].as_str().unwrap().contains("headers"), "{v}");
        // The router's answers (with a type, or with a body) pass as they are.
        assert!(with_error_body(b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\n\r\n").is_none());
        assert!(with_error_body(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 2\r\n\r\n{}").is_none());
        assert!(with_error_body(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").is_none());
        assert!(with_error_body(b"data: HTTP/1.1 400 x\r\n\r\n").is_none());
    }
}
