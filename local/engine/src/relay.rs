//! A TCP relay that counts the connections made through it: put in front of the engine or the
//! payment provider, it tells a test whether a function's init opened its connection.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::net::{TcpListener, TcpStream};

use crate::Error;

/// A relay on a free port of 127.0.0.1 to an `http://host:port` address.
pub struct CountingRelay {
    /// `http://127.0.0.1:<port>`, to give the function in place of the address relayed.
    pub url: String,
    connections: Arc<AtomicUsize>,
    accepting: tokio::task::JoinHandle<()>,
}

impl Drop for CountingRelay {
    fn drop(&mut self) {
        self.accepting.abort();
    }
}

impl CountingRelay {
    /// Relays each connection made to [`CountingRelay::url`] to `target`, byte for byte.
    pub async fn start(target: &str) -> Result<Self, Error> {
        let upstream = target
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_owned();
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}", listener.local_addr()?);
        let connections = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&connections);
        let accepting = tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                counted.fetch_add(1, Ordering::SeqCst);
                let upstream = upstream.clone();
                tokio::spawn(async move {
                    if let Ok(mut outbound) = TcpStream::connect(&upstream).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
            }
        });
        Ok(Self {
            url,
            connections,
            accepting,
        })
    }

    /// How many connections have been made through it so far.
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }
}
