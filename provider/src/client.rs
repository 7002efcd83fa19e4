//! The connection to the provider: its base URL, the secret key, one HTTP client per process
//! (its connections kept and reused), and one kind of request: a form `POST` or a `GET`,
//! answered with JSON.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Method, Request};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use rustls::pki_types::pem::PemObject;
use serde::de::DeserializeOwned;
use shared::AppError;
use shared::domain::error::BoxError;
use shared::retry::{Backoff, retry};

/// The provider's API version every request is written for, sent as `Stripe-Version` so that
/// an account whose default version is newer reads them the same. The parameters the client
/// sends are held to this version's published description (`provider/tests/openapi.rs`). The
/// next version, `2026-09-30.endive`, removes `payment_method_types` from PaymentIntents in
/// favour of `allowed_payment_method_types`, which localstripe does not know yet.
pub const API_VERSION: &str = "2026-08-26.dahlia";

/// The provider's API, unless `PAYMENT_API_BASE` says otherwise (make dev's localstripe).
pub const DEFAULT_BASE: &str = "https://api.stripe.com";

/// How long one attempt may take. The provider answers in well under a second; one that has
/// not in two is tried again.
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(2);

/// How long init waits for the provider's warm-up before it serves without it.
pub const WARM_UP_TIMEOUT: Duration = Duration::from_secs(1);

/// Three attempts, waits drawn from up to 100 and 200 ms: a call gives up within ~6.3 s, inside
/// the function's timeout, so the client gets a 503 with `Retry-After` rather than a lost request.
pub const BACKOFF: Backoff = Backoff {
    attempts: 3,
    base: Duration::from_millis(100),
    cap: Duration::from_secs(1),
};

type Http = Client<HttpsConnector<HttpConnector>, Full<Bytes>>;

/// Why a request to the provider did not get its answer.
#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    /// No answer in time, no connection, a 429 or a 5xx, after every retry: worth trying later.
    #[error("the payment provider is unavailable: {0}")]
    Unavailable(String),
    /// It refused the request (a 4xx other than 429), with its own reason.
    #[error("the payment provider refused the request ({status}): {message}")]
    Refused {
        /// The HTTP status.
        status: u16,
        /// The provider's error code (`card_declined`, `resource_missing`, ...), if it gave one.
        code: Option<String>,
        /// The provider's message.
        message: String,
    },
    /// An answer the store cannot read.
    #[error("the payment provider's answer is unreadable: {0}")]
    Malformed(String),
}

impl From<ProviderError> for AppError {
    fn from(err: ProviderError) -> Self {
        match err {
            // The client may try again: a 503 with Retry-After.
            ProviderError::Unavailable(_) => AppError::unavailable(err),
            // The store's own request was wrong, or the provider's answer: nothing for the
            // client to fix. The log says which.
            other => AppError::internal(other),
        }
    }
}

/// The secret key: never printed.
#[derive(Clone)]
struct ApiKey(String);

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(redacted)")
    }
}

/// The payment provider, as the functions that call it hold it: cheap to clone.
#[derive(Debug, Clone)]
pub struct Provider {
    inner: Arc<Inner>,
}

struct Inner {
    base: String,
    key: ApiKey,
    http: OnceLock<Http>,
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Provider")
            .field("base", &self.base)
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

impl Provider {
    /// The provider at `base` (`https://api.stripe.com`, or make dev's `http://127.0.0.1:8420`),
    /// called with the secret `key`.
    pub fn new(base: &str, key: &str) -> Self {
        Self {
            inner: Arc::new(Inner {
                base: base.trim_end_matches('/').to_owned(),
                key: ApiKey(key.to_owned()),
                http: OnceLock::new(),
            }),
        }
    }

    /// The provider the function's environment names: `PAYMENT_API_BASE` (default
    /// [`DEFAULT_BASE`]) and the key, `PAYMENT_API_KEY` when set (make dev, `sam local invoke`),
    /// else the Secrets Manager secret `PAYMENT_API_KEY_SECRET_ID` names, read once, now.
    pub async fn from_env() -> Result<Self, BoxError> {
        let base = crate::secret::set("PAYMENT_API_BASE").unwrap_or_else(|| DEFAULT_BASE.into());
        if !(base.starts_with("https://") || base.starts_with("http://")) {
            return Err(format!("PAYMENT_API_BASE must be an http(s) URL, not {base:?}").into());
        }
        let key = crate::secret::read("PAYMENT_API_KEY", "PAYMENT_API_KEY_SECRET_ID").await?;
        let key = key.trim();
        if !key.starts_with("sk_") && !key.starts_with("rk_") {
            return Err(
                "the payment provider's key must be a secret (sk_) or restricted (rk_) key".into(),
            );
        }
        Ok(Self::new(&base, key))
    }

    /// Readies the provider in init, for a function a caller waits on (checkout): its
    /// connection opened ([`Provider::warm_up`]) when `open_connection` says so
    /// (`shared::bootstrap::opens_connections_in_init`: where init runs ahead of traffic), else
    /// nothing, and the first request opens it. The scheduled functions skip it: no caller
    /// waits on them, and a run with nothing to pay never needs the connection.
    pub async fn prepare(&self, open_connection: bool) {
        if open_connection {
            self.warm_up().await;
        }
    }

    /// Opens the connection (TCP, TLS) with the cheapest request the key may always make, a
    /// list of one refund, read and dropped. Bounded to [`WARM_UP_TIMEOUT`], tried once, and
    /// never fatal: a cold start must not fail over it. A refusal (a revoked key) is logged.
    pub async fn warm_up(&self) {
        let list = self.attempt(&Method::GET, "/v1/refunds?limit=1", None, "");
        match tokio::time::timeout(WARM_UP_TIMEOUT, list).await {
            Ok(Ok(_)) => tracing::debug!("payment provider's connection warmed up"),
            Ok(Err(err)) => tracing::warn!(error = %err, "payment provider's warm-up failed"),
            Err(_) => tracing::warn!(
                "payment provider's warm-up took over {WARM_UP_TIMEOUT:?}; gave up on it"
            ),
        }
    }

    /// Where the provider is.
    pub fn base(&self) -> &str {
        &self.inner.base
    }

    /// The HTTP client, built by the first request (or the warm-up): TLS trusts Mozilla's roots
    /// as `webpki-roots` compiles them in, ready-made trust anchors with nothing to parse at run
    /// time, where reading the system's PEM bundle would parse ~140 certificates at every cold
    /// start of the functions that call the provider.
    fn http(&self) -> &Http {
        self.inner.http.get_or_init(|| {
            let mut roots = rustls::RootCertStore {
                roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
            };
            // `make bench` only: its provider's TLS endpoint, signed by a test root.
            if let Some(root) = shared::dynamo::client::BENCH_TEST_ROOT {
                let test_root = rustls::pki_types::CertificateDer::pem_slice_iter(root).flatten();
                roots.add_parsable_certificates(test_root);
            }
            let tls = rustls::ClientConfig::builder_with_provider(Arc::new(
                rustls::crypto::ring::default_provider(),
            ))
            .with_safe_default_protocol_versions()
            .map(|config| config.with_root_certificates(roots).with_no_client_auth())
            .unwrap_or_else(|_| unreachable!("ring supports the default protocol versions"));
            let connector = hyper_rustls::HttpsConnectorBuilder::new()
                .with_tls_config(tls)
                .https_or_http()
                .enable_http1()
                .build();
            Client::builder(TokioExecutor::new()).build(connector)
        })
    }

    /// `POST path` with `fields` as a form (or `GET path` without), retried on what is safe to
    /// retry, the answer read as `T`. A POST that creates something carries `idempotency_key`.
    pub(crate) async fn send<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        idempotency_key: Option<&str>,
        fields: &[(&str, &str)],
    ) -> Result<T, ProviderError> {
        let body = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(fields)
            .finish();
        let answer = retry(
            &BACKOFF,
            |err| matches!(err, ProviderError::Unavailable(_)),
            |_| self.attempt(&method, path, idempotency_key, &body),
        )
        .await?;
        serde_json::from_slice(&answer).map_err(|err| ProviderError::Malformed(err.to_string()))
    }

    /// `POST path` with `fields` once, never retried here: for a request that a provider
    /// ignoring `Idempotency-Key` could act on twice. Its caller looks for what an unanswered
    /// attempt made before it sends again.
    pub(crate) async fn send_once<T: DeserializeOwned>(
        &self,
        path: &str,
        idempotency_key: &str,
        fields: &[(&str, &str)],
    ) -> Result<T, ProviderError> {
        let body = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(fields)
            .finish();
        let answer = self
            .attempt(&Method::POST, path, Some(idempotency_key), &body)
            .await?;
        serde_json::from_slice(&answer).map_err(|err| ProviderError::Malformed(err.to_string()))
    }

    async fn attempt(
        &self,
        method: &Method,
        path: &str,
        idempotency_key: Option<&str>,
        body: &str,
    ) -> Result<Bytes, ProviderError> {
        let mut request = Request::builder()
            .method(method.clone())
            .uri(format!("{}{path}", self.inner.base))
            .header("authorization", format!("Bearer {}", self.inner.key.0))
            .header("stripe-version", API_VERSION);
        if *method == Method::POST {
            request = request.header("content-type", "application/x-www-form-urlencoded");
        }
        if let Some(key) = idempotency_key {
            request = request.header("idempotency-key", key);
        }
        let request = request
            .body(Full::new(Bytes::from(body.to_owned())))
            .map_err(|err| ProviderError::Malformed(err.to_string()))?;
        let exchange = async {
            let response = self.http().request(request).await?;
            let status = response.status();
            let bytes = response.into_body().collect().await?.to_bytes();
            Ok::<_, BoxError>((status, bytes))
        };
        let (status, bytes) = tokio::time::timeout(ATTEMPT_TIMEOUT, exchange)
            .await
            .map_err(|_| {
                ProviderError::Unavailable(format!("no answer within {ATTEMPT_TIMEOUT:?}"))
            })?
            .map_err(|err| ProviderError::Unavailable(err.to_string()))?;
        if status.is_success() {
            return Ok(bytes);
        }
        if status.as_u16() == 429 || status.is_server_error() {
            return Err(ProviderError::Unavailable(format!("it answered {status}")));
        }
        Err(refusal(status.as_u16(), &bytes))
    }
}

/// A 4xx as the provider explains it: `{"error": {"code", "message"}}`.
fn refusal(status: u16, body: &[u8]) -> ProviderError {
    let error = serde_json::from_slice::<serde_json::Value>(body)
        .map(|v| v["error"].clone())
        .unwrap_or_default();
    ProviderError::Refused {
        status,
        code: error["code"].as_str().map(str::to_owned),
        message: error["message"].as_str().unwrap_or("no message").to_owned(),
    }
}
