//! `make dev`: the HTTP API of template.yaml served on the embedded engine, each route calling
//! the same handler code as its Lambda, through the same API Gateway (payload 2.0) event.

pub mod auth;
pub mod events;
pub mod explorer;
pub mod openapi;
pub mod payments;
pub mod routes;
pub mod server;
mod state;

use lambda_http::{Body, Request, Response};
use payment_provider::Provider;
use shared::Store;
use shared::http::serve::dispatch;
use shared::http::signature::WebhookSecrets;

/// [`BINARIES`] and [`invoke`], made from the functions crate's list of each Cargo binary
/// (template.yaml's `Metadata.BuildProperties.Binary`) whose handler needs only the store
/// (`functions::http_over_the_store!`), and the two that need more.
macro_rules! handlers {
    ($($binary:literal => $handler:path),* $(,)?) => {
        /// The binaries [`invoke`] can run.
        pub const BINARIES: &[&str] = &[$($binary,)* WEBHOOK, CHECKOUT];

        /// Calls the handler of the Lambda built from `binary`, as its `main` would: the
        /// payment webhook with the endpoint secrets, checkout with the payment provider,
        /// every other with the store alone; each request it sends held to the binary's
        /// declaration in `shared::permissions`.
        pub async fn invoke(
            binary: &str,
            services: &Services,
            req: Request,
        ) -> Option<Response<Body>> {
            if !knows(binary) {
                return None;
            }
            let work = handle(binary, services, req);
            if services.strict_declarations {
                local_engine::declared::as_function(binary, work).await
            } else {
                as_declared(binary, work).await
            }
        }

        async fn handle(
            binary: &str,
            services: &Services,
            req: Request,
        ) -> Option<Response<Body>> {
            let store = &services.store;
            // Each handler's future boxed: this one is then a pointer, not the largest of
            // them, and a test's thread keeps its stack as the handlers grow.
            Some(match binary {
                $($binary => Box::pin(dispatch(store, req, $handler)).await,)*
                WEBHOOK => {
                    let webhook = functions::payment_webhook::Webhook {
                        store: store.clone(),
                        secrets: services.secrets.clone(),
                    };
                    Box::pin(dispatch(&webhook, req, functions::payment_webhook::handle)).await
                }
                CHECKOUT => {
                    let checkout = functions::checkout::Checkout {
                        store: store.clone(),
                        provider: services.provider.clone(),
                    };
                    Box::pin(dispatch(&checkout, req, functions::checkout::handle)).await
                }
                _ => return None,
            })
        }
    };
}

/// What the handlers need besides their request, as each Lambda's `main` builds it.
#[derive(Debug, Clone)]
pub struct Services {
    /// The store.
    pub store: Store,
    /// The payment webhook's endpoint secrets.
    pub secrets: WebhookSecrets,
    /// The payment provider checkout asks for each payment.
    pub provider: Provider,
    /// Whether a request outside its function's declaration fails (the tests) or is only
    /// logged (make dev); in both it is refused, as IAM refuses it ([`local_engine::declared`]).
    pub strict_declarations: bool,
}

impl Services {
    /// `store` with the tests' endpoint secret and this process's payment provider (one
    /// localstripe per test binary: `local_engine::testing::provider`).
    pub fn for_test(store: &Store) -> Self {
        Self {
            store: store.clone(),
            secrets: local_engine::testing::webhook_secrets(),
            provider: local_engine::testing::provider(),
            strict_declarations: true,
        }
    }
}

/// The binaries whose handlers need more than the store: the endpoint secrets, the provider.
const WEBHOOK: &str = "payment-webhook";
const CHECKOUT: &str = "checkout";

functions::http_over_the_store!(handlers);

/// Runs `work` as make dev runs `binary`: each request held to its declaration, one outside it
/// refused as IAM would refuse it, and logged.
pub async fn as_declared<F: Future>(binary: &str, work: F) -> F::Output {
    let (output, refused) = local_engine::declared::serving(binary, work).await;
    if !refused.is_empty() {
        tracing::error!(
            binary,
            ?refused,
            "requests shared::permissions does not declare: IAM would refuse them in AWS"
        );
    }
    output
}

/// Whether [`invoke`] knows the binary.
pub fn knows(binary: &str) -> bool {
    BINARIES.contains(&binary)
}

/// The folder beside the data file (`STORE_DATA_FILE`) where local state other than the
/// table lives: the issuer's key, the stream checkpoints.
pub fn data_dir(data_file: &std::path::Path) -> std::path::PathBuf {
    data_file
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .map_or_else(
            || std::path::PathBuf::from("."),
            std::path::Path::to_path_buf,
        )
}

/// `STORE_DATA_FILE`, or `.local-data/store.db`.
pub fn data_file() -> std::path::PathBuf {
    std::env::var("STORE_DATA_FILE")
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| ".local-data/store.db".to_owned())
        .into()
}
