//! A bounded queue from many tasks to one that holds no memory while it is empty.
//!
//! tokio's channels allocate their first block of 32 slots when made: an idle HTTP session
//! would hold that much for each queue into its loop, every session of a server with
//! thousands open. This one stores its items in a `VecDeque` that grows on first use.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

use crate::util::lock;

/// Makes a queue of at most `capacity` items waiting.
pub(crate) fn queue<T>(capacity: usize) -> (QueueSender<T>, QueueReceiver<T>) {
    let shared = Arc::new(Shared {
        state: Mutex::new(State { items: VecDeque::new(), senders: 1, receiving: true }),
        readable: Notify::new(),
        writable: Notify::new(),
        capacity: capacity.max(1),
    });
    (QueueSender(Arc::clone(&shared)), QueueReceiver(shared))
}

struct Shared<T> {
    state: Mutex<State<T>>,
    /// Wakes the receiver: an item came, or the last sender went.
    readable: Notify,
    /// Wakes a sender waiting for room (all of them when the receiver went).
    writable: Notify,
    capacity: usize,
}

struct State<T> {
    items: VecDeque<T>,
    senders: usize,
    receiving: bool,
}

/// The sending end; clones send to the same receiver.
pub(crate) struct QueueSender<T>(Arc<Shared<T>>);

impl<T> std::fmt::Debug for QueueSender<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueueSender").field("capacity", &self.0.capacity).finish_non_exhaustive()
    }
}

/// The receiving end: the queue is closed when it is dropped.
pub(crate) struct QueueReceiver<T>(Arc<Shared<T>>);

impl<T> QueueSender<T> {
    /// Queues `item`, waiting while the queue is full; `Err(item)` once the receiver is gone.
    pub(crate) async fn send(&self, item: T) -> Result<(), T> {
        let mut item = item;
        loop {
            // Made before the check, so that room made after it wakes this wait.
            let room = self.0.writable.notified();
            match self.try_send(item) {
                Err(TrySend::Full(back)) => item = back,
                Err(TrySend::Closed(back)) => return Err(back),
                Ok(()) => return Ok(()),
            }
            room.await;
        }
    }

    /// Queues `item` if there is room now.
    pub(crate) fn try_send(&self, item: T) -> Result<(), TrySend<T>> {
        let mut state = lock(&self.0.state);
        if !state.receiving {
            return Err(TrySend::Closed(item));
        }
        if state.items.len() >= self.0.capacity {
            return Err(TrySend::Full(item));
        }
        state.items.push_back(item);
        drop(state);
        self.0.readable.notify_one();
        Ok(())
    }
}

/// Why [`QueueSender::try_send`] gave its item back.
#[derive(Debug)]
pub(crate) enum TrySend<T> {
    /// The queue holds its capacity now.
    Full(T),
    /// The receiver is gone.
    Closed(T),
}

impl<T> Clone for QueueSender<T> {
    fn clone(&self) -> Self {
        lock(&self.0.state).senders += 1;
        QueueSender(Arc::clone(&self.0))
    }
}

impl<T> Drop for QueueSender<T> {
    fn drop(&mut self) {
        let mut state = lock(&self.0.state);
        state.senders -= 1;
        if state.senders == 0 {
            drop(state);
            self.0.readable.notify_one();
        }
    }
}

impl<T> QueueReceiver<T> {
    /// The next item, waiting for one; `None` once it is empty and every sender is gone.
    /// Cancel-safe: an item is taken only when it is returned.
    pub(crate) async fn recv(&mut self) -> Option<T> {
        loop {
            let ready = self.0.readable.notified();
            {
                let mut state = lock(&self.0.state);
                if let Some(item) = state.items.pop_front() {
                    drop(state);
                    self.0.writable.notify_one();
                    return Some(item);
                }
                if state.senders == 0 {
                    return None;
                }
            }
            ready.await;
        }
    }
}

impl<T> Drop for QueueReceiver<T> {
    fn drop(&mut self) {
        let left = {
            let mut state = lock(&self.0.state);
            state.receiving = false;
            std::mem::take(&mut state.items)
        };
        // Dropped outside the lock: an item's drop may do anything.
        drop(left);
        self.0.writable.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn items_arrive_in_order_and_a_full_queue_makes_its_senders_wait() {
        let (tx, mut rx) = queue::<u32>(2);
        tx.send(1).await.unwrap();
        tx.send(2).await.unwrap();
        assert!(matches!(tx.try_send(3), Err(TrySend::Full(3))));
        let other = tx.clone();
        let waiting = tokio::spawn(async move { other.send(3).await });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished(), "full: the sender waits");
        assert_eq!(rx.recv().await, Some(1));
        tokio::time::timeout(Duration::from_secs(5), waiting).await.expect("room wakes it").unwrap().unwrap();
        assert_eq!((rx.recv().await, rx.recv().await), (Some(2), Some(3)));
        drop(tx);
        assert_eq!(rx.recv().await, None, "empty, every sender gone");
    }

    #[tokio::test]
    async fn a_queue_whose_receiver_is_gone_refuses_items_and_frees_its_waiting_senders() {
        let (tx, rx) = queue::<u32>(1);
        tx.send(1).await.unwrap();
        let other = tx.clone();
        let waiting = tokio::spawn(async move { other.send(2).await });
        tokio::task::yield_now().await;
        drop(rx);
        let refused = tokio::time::timeout(Duration::from_secs(5), waiting).await.expect("woken").unwrap();
        assert_eq!(refused, Err(2));
        assert!(matches!(tx.try_send(3), Err(TrySend::Closed(3))));
    }

    #[tokio::test]
    async fn a_receiver_waiting_on_an_empty_queue_wakes_for_an_item_and_for_the_last_sender() {
        let (tx, mut rx) = queue::<u32>(4);
        let receiving = tokio::spawn(async move { (rx.recv().await, rx.recv().await) });
        tokio::task::yield_now().await;
        tx.send(7).await.unwrap();
        drop(tx);
        let got = tokio::time::timeout(Duration::from_secs(5), receiving).await.expect("woken").unwrap();
        assert_eq!(got, (Some(7), None));
    }
}
