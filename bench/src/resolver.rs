//! The endpoint's host name, resolved as Lambda resolves it: every measured process asks the
//! system resolver (glibc's `getaddrinfo`, through `/etc/nsswitch.conf` and `/etc/resolv.conf`),
//! and the resolver asks a DNS server on loopback, this one. Each process sees its own
//! `/etc/resolv.conf` and `/etc/nsswitch.conf` naming it, bind-mounted in a mount namespace of its
//! own before its clock starts ([`crate::cpu_share::CpuShare::command`]); the machine's files are
//! left as they are.
//!
//! The server answers the names it knows, [`DYNAMODB`] and [`PAYMENTS`], with 127.0.0.1 (an `A` record; an `AAAA`
//! query gets an answer with no address, as a name with only IPv4 does), and any other name
//! NXDOMAIN. It counts the queries it answered: a cold start asks once or twice (`A` and `AAAA`,
//! in parallel), and a figure measured with the name is one that paid for it.

use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use local_engine::runtime_api::Error;

/// DynamoDB's host name here (the bench's TLS leaf names it: bench/tls/README.md).
pub(crate) const DYNAMODB: &str = "dynamodb.bench.test";
/// The payment provider's (checkout's section).
pub(crate) const PAYMENTS: &str = "payments.bench.test";

/// Where the server listens: a loopback address of its own, on DNS's port (`resolv.conf` names
/// no port).
const ADDRESS: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 153);

/// How long an answer may be cached: a minute, as DynamoDB's own names are answered.
const TTL_SECONDS: u32 = 60;

/// The running server, and the files a process mounts to use it.
pub(crate) struct Resolver {
    conf: PathBuf,
    queries: Arc<AtomicU64>,
}

impl Resolver {
    /// The server, started on the first call (on the current runtime, for the rest of the
    /// bench's life), with the files that name it.
    pub(crate) fn shared() -> Result<&'static Self, Error> {
        static STARTED: std::sync::Mutex<Option<&'static Resolver>> = std::sync::Mutex::new(None);
        let mut started = STARTED.lock().map_err(|_| "the resolver's lock")?;
        if let Some(resolver) = *started {
            return Ok(resolver);
        }
        let socket = std::net::UdpSocket::bind((ADDRESS, 53))
            .map_err(|err| format!("a DNS server on {ADDRESS}:53: {err}"))?;
        socket.set_nonblocking(true)?;
        let socket = tokio::net::UdpSocket::from_std(socket)?;
        let conf = std::env::temp_dir().join("store-bench-resolver");
        std::fs::create_dir_all(&conf)?;
        std::fs::write(conf.join("resolv.conf"), format!("nameserver {ADDRESS}\n"))?;
        std::fs::write(conf.join("nsswitch.conf"), "hosts: files dns\n")?;
        let queries = Arc::new(AtomicU64::new(0));
        let counted = queries.clone();
        tokio::spawn(async move {
            let mut buffer = [0u8; 512];
            while let Ok((n, from)) = socket.recv_from(&mut buffer).await {
                if let Some(reply) = answer(&buffer[..n]) {
                    counted.fetch_add(1, Ordering::Relaxed);
                    let _ = socket.send_to(&reply, from).await;
                }
            }
        });
        let resolver: &'static Self = Box::leak(Box::new(Self { conf, queries }));
        *started = Some(resolver);
        Ok(resolver)
    }

    /// The folder holding the `resolv.conf` and `nsswitch.conf` a process mounts over its own.
    pub(crate) fn conf(&self) -> &Path {
        &self.conf
    }

    /// How many queries it has answered.
    pub(crate) fn queries(&self) -> u64 {
        self.queries.load(Ordering::Relaxed)
    }

    /// `endpoint` (`scheme://ip:port`) with `host` in place of its address.
    pub(crate) fn named(endpoint: &str, host: &str) -> String {
        match endpoint.split_once("://") {
            Some((scheme, rest)) => {
                let port = rest.rsplit_once(':').map_or("", |(_, port)| port);
                format!("{scheme}://{host}:{port}")
            }
            None => endpoint.to_owned(),
        }
    }
}

/// The answer to one DNS `query` (RFC 1035: a header, one question), or none for a packet that
/// is not one.
fn answer(query: &[u8]) -> Option<Vec<u8>> {
    let header = query.get(..12)?;
    if header[2] & 0x80 != 0 || u16::from_be_bytes([header[4], header[5]]) != 1 {
        return None;
    }
    let (name, end) = question_name(query)?;
    let kind = u16::from_be_bytes([*query.get(end)?, *query.get(end + 1)?]);
    let class = u16::from_be_bytes([*query.get(end + 2)?, *query.get(end + 3)?]);
    let known = [DYNAMODB, PAYMENTS]
        .iter()
        .any(|host| name.eq_ignore_ascii_case(host));
    let address = known && kind == 1 && class == 1;
    let mut reply = Vec::with_capacity(end + 20);
    reply.extend_from_slice(&header[..2]);
    // A response, authoritative, recursion desired as asked; NOERROR or NXDOMAIN.
    reply.push(0x84 | (header[2] & 0x01));
    reply.push(if known { 0 } else { 3 });
    reply.extend_from_slice(&[0, 1, 0, u8::from(address), 0, 0, 0, 0]);
    reply.extend_from_slice(&query[12..end + 4]);
    if address {
        // The question's name (a pointer to offset 12), A, IN, the TTL, four bytes: 127.0.0.1.
        reply.extend_from_slice(&[0xc0, 0x0c, 0, 1, 0, 1]);
        reply.extend_from_slice(&TTL_SECONDS.to_be_bytes());
        reply.extend_from_slice(&[0, 4, 127, 0, 0, 1]);
    }
    Some(reply)
}

/// The question's name, dotted, and where its type begins.
fn question_name(query: &[u8]) -> Option<(String, usize)> {
    let mut labels = Vec::new();
    let mut at = 12;
    loop {
        let length = usize::from(*query.get(at)?);
        at += 1;
        if length == 0 {
            return Some((labels.join("."), at));
        }
        if length > 63 {
            return None;
        }
        labels.push(std::str::from_utf8(query.get(at..at + length)?).ok()?);
        at += length;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A query as glibc's stub resolver writes it: id, recursion desired, one question.
    fn query(name: &str, kind: u16) -> Vec<u8> {
        let mut q = vec![0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0];
        for label in name.split('.') {
            q.push(label.len() as u8);
            q.extend_from_slice(label.as_bytes());
        }
        q.push(0);
        q.extend_from_slice(&kind.to_be_bytes());
        q.extend_from_slice(&[0, 1]);
        q
    }

    #[test]
    fn the_host_is_answered_with_loopback_and_any_other_name_is_nxdomain() {
        let a = answer(&query(DYNAMODB, 1)).expect("an answer");
        assert_eq!(&a[..2], &[0x12, 0x34], "the query's id");
        assert_eq!(a[3] & 0x0f, 0, "NOERROR");
        assert_eq!(u16::from_be_bytes([a[6], a[7]]), 1, "one answer");
        assert_eq!(&a[a.len() - 4..], &[127, 0, 0, 1]);

        let aaaa = answer(&query(PAYMENTS, 28)).expect("an answer");
        assert_eq!((aaaa[3] & 0x0f, aaaa[7]), (0, 0), "NOERROR, no address");

        let other = answer(&query("dynamodb.us-east-1.amazonaws.com", 1)).expect("an answer");
        assert_eq!((other[3] & 0x0f, other[7]), (3, 0), "NXDOMAIN");

        assert!(answer(&[0; 5]).is_none(), "not a query");
    }

    #[test]
    fn an_endpoint_is_named_by_the_host_on_its_own_port() {
        assert_eq!(
            Resolver::named("https://127.0.0.1:4433", DYNAMODB),
            "https://dynamodb.bench.test:4433"
        );
    }
}
