//! A ticket's answer as both faces of the HTTP API send it: whole ([`answer`]), or as
//! server-sent events through one loop ([`events`]) that each face fills with its own shape of
//! the events, the answer and the refusal ([`Shape`]). Either way the ticket lives in the
//! response: a client that goes away drops it, which cancels the episode (or takes a request
//! that still waits out of the queue).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, StreamExt};

use super::client::{probe_when_closed, ClientSide};
use super::events::{Answer, EpisodeEvent};
use super::refusal::Refusal;
use super::service::{Ticket, Update};
use super::state::AppState;

/// How often a stream with nothing new sends a comment, so that proxies keep it open.
const KEEP_ALIVE: Duration = Duration::from_secs(10);

/// Waits for the answer of `ticket`, an episode on the database `db`; or the refusal of an
/// episode that did not finish ([`Refusal::episode`]), or of an engine that stopped first.
pub async fn answer(mut ticket: Ticket, st: &AppState, db: &str) -> Result<Box<Answer>, Refusal> {
    while let Some(update) = ticket.updates.recv().await {
        if let Update::Done(result) = update {
            return result.map_err(|e| Refusal::episode(&st.redact, db, &e));
        }
    }
    Err(Refusal::engine_stopped())
}

/// What a face sends of an episode, as server-sent events.
pub trait Shape: Send + 'static {
    /// The first events, before any of the episode's: the request waits behind `position` others.
    fn start(&mut self, position: usize) -> Vec<Event>;
    /// The events of one thing that happened (none, to send nothing for it).
    fn event(&mut self, event: &EpisodeEvent) -> Vec<Event>;
    /// The last events of an episode that answered.
    fn answer(&mut self, answer: &Answer) -> Vec<Event>;
    /// The last events of an episode that did not.
    fn refusal(&mut self, refusal: Refusal) -> Vec<Event>;
}

/// The episode of `ticket`, on the database `db`, as server-sent events in `shape`: its start,
/// its events as they happen, then its answer or its refusal, and the stream ends. A client that
/// closed its side is probed ([`probe_when_closed`]); one that went away drops the stream, which
/// drops the ticket.
pub fn events(
    ticket: Ticket,
    st: Arc<AppState>,
    db: String,
    mut shape: impl Shape,
    client: Option<ClientSide>,
) -> Response {
    let head = stream::iter(shape.start(ticket.position).into_iter().map(Ok::<Event, Infallible>));
    let rest = stream::unfold(Some((ticket, shape)), move |state| {
        let (st, db) = (st.clone(), db.clone());
        async move {
            let (mut ticket, mut shape) = state?;
            loop {
                let (out, more) = match ticket.updates.recv().await {
                    Some(Update::Event(e)) => match shape.event(&e) {
                        out if out.is_empty() => continue,
                        out => (out, true),
                    },
                    Some(Update::Done(Ok(answer))) => (shape.answer(&answer), false),
                    Some(Update::Done(Err(e))) => (shape.refusal(Refusal::episode(&st.redact, &db, &e)), false),
                    None => (shape.refusal(Refusal::engine_stopped()), false),
                };
                let next = if more { Some((ticket, shape)) } else { None };
                return Some((stream::iter(out.into_iter().map(Ok::<Event, Infallible>)), next));
            }
        }
    });
    let events = probe_when_closed(head.chain(rest.flatten()), client);
    Sse::new(events).keep_alive(KeepAlive::new().interval(KEEP_ALIVE)).into_response()
}
