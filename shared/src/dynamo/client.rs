//! The SDK client, built once per cold start from the Lambda environment.
//!
//! Built directly rather than through `aws-config`'s default chain: a function has exactly one
//! source of configuration, the variables Lambda sets, and the chain's other sources (profile
//! files, SSO, web identity through STS, the container and instance metadata services) only cost
//! init time (~1.4 M instructions, measured with `make bench`) and a build of the STS client.
//! Likewise TLS trusts the Amazon Trust Services roots compiled into the binary instead of
//! parsing the system's whole PEM bundle (~140 certificates, ~17 M instructions) on every cold
//! start: DynamoDB's certificates chain to those roots in every commercial AWS region.

use std::time::Duration;

use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::config::timeout::TimeoutConfig;
use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region, SharedHttpClient};
use aws_smithy_http_client::tls;
use aws_smithy_runtime_api::client::connector_metadata::ConnectorMetadata;
use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnectorSettings, SharedHttpConnector,
};
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;

use crate::Store;

/// The roots DynamoDB's endpoints chain to: Amazon Root CA 1–4 and Starfield Services Root
/// CA G2, the Amazon Trust Services set (the same certificates as Mozilla's store, checked by a
/// test against the system's copies).
pub const AMAZON_TRUST_SERVICES: &[u8] = include_bytes!("amazon-trust-services.pem");

/// `make bench`'s build only: the test root its TLS fronts' chains are signed by
/// (`bench/tls/root.pem`), which the functions trust beside their own roots, for the engine and
/// for the payment provider. `None` in every build that ships.
#[cfg(feature = "bench-build")]
pub const BENCH_TEST_ROOT: Option<&[u8]> = Some(include_bytes!("../../../bench/tls/root.pem"));
/// No test root: this build ships (`make bench`'s alone trusts `bench/tls/root.pem`).
#[cfg(not(feature = "bench-build"))]
pub const BENCH_TEST_ROOT: Option<&[u8]> = None;

/// The SDK's HTTP client: hyper with rustls on ring, verifying servers against
/// [`AMAZON_TRUST_SERVICES`] only (http:// works too, for a local engine); its connector, TLS
/// configuration included, built when the first request needs it ([`BuiltOnFirstUse`]).
pub fn http_client() -> SharedHttpClient {
    SharedHttpClient::new(BuiltOnFirstUse(hyper_client()))
}

/// The SDK's hyper client as configured, which builds a connector (the TLS configuration from
/// the trust store's PEM, ~300 k instructions by callgrind) once more when a client is
/// built, only to drop it: to load a machine's native roots at client construction, which this
/// client does not use. The connector it uses is built by the first request, as before; what
/// this takes out is the one it threw away, from every init and every client of it.
#[derive(Debug)]
pub struct BuiltOnFirstUse(SharedHttpClient);

impl HttpClient for BuiltOnFirstUse {
    fn http_connector(
        &self,
        settings: &HttpConnectorSettings,
        components: &RuntimeComponents,
    ) -> SharedHttpConnector {
        self.0.http_connector(settings, components)
    }

    fn connector_metadata(&self) -> Option<ConnectorMetadata> {
        self.0.connector_metadata()
    }
}

/// The same client with its connector for `timeouts` built now, in init: the TLS configuration
/// (~300 k instructions) is then no part of the first request, which an on-demand Lambda runs
/// at the memory size's CPU share, where init has the whole CPU (docs/performance.md, "Cold
/// starts as Lambda runs them"). A request with other connector settings builds its own, as
/// [`http_client`] does.
pub fn http_client_built_for(timeouts: &TimeoutConfig) -> SharedHttpClient {
    let mut settings = HttpConnectorSettings::builder();
    settings
        .set_connect_timeout(timeouts.connect_timeout())
        .set_read_timeout(timeouts.read_timeout());
    let settings = settings.build();
    let connector = aws_smithy_http_client::Connector::builder()
        .connector_settings(settings.clone())
        .tls_provider(tls::Provider::Rustls(
            tls::rustls_provider::CryptoMode::Ring,
        ))
        .tls_context(tls_context())
        .build();
    SharedHttpClient::new(BuiltInInit {
        settings,
        connector: SharedHttpConnector::new(connector),
        others: http_client(),
    })
}

/// [`http_client_built_for`]'s client: the connector built in init for its settings, any other
/// built on first use.
#[derive(Debug)]
struct BuiltInInit {
    settings: HttpConnectorSettings,
    connector: SharedHttpConnector,
    others: SharedHttpClient,
}

impl HttpClient for BuiltInInit {
    fn http_connector(
        &self,
        settings: &HttpConnectorSettings,
        components: &RuntimeComponents,
    ) -> SharedHttpConnector {
        let same = settings.connect_timeout() == self.settings.connect_timeout()
            && settings.read_timeout() == self.settings.read_timeout();
        match same {
            true => self.connector.clone(),
            false => self.others.http_connector(settings, components),
        }
    }

    fn connector_metadata(&self) -> Option<ConnectorMetadata> {
        self.others.connector_metadata()
    }
}

/// The TLS context of every client: [`AMAZON_TRUST_SERVICES`], and in `make bench`'s build its
/// test root.
fn tls_context() -> tls::TlsContext {
    let trust = tls::TrustStore::empty()
        .with_native_roots(false)
        .with_pem_certificate(AMAZON_TRUST_SERVICES);
    // `make bench` only (bench/tls/README.md): its engine's TLS endpoint, signed by a test root.
    let trust = match BENCH_TEST_ROOT {
        Some(root) => trust.with_pem_certificate(root),
        None => trust,
    };
    tls::TlsContext::builder()
        .with_trust_store(trust)
        .build()
        .expect("a TLS context from a trust store alone always builds")
}

fn hyper_client() -> SharedHttpClient {
    aws_smithy_http_client::Builder::new()
        .tls_provider(tls::Provider::Rustls(
            tls::rustls_provider::CryptoMode::Ring,
        ))
        .tls_context(tls_context())
        .build_https()
}

/// How long DynamoDB may take. A request normally answers in milliseconds; one that has not in
/// a second is stuck (a lost connection, a lost answer) and is tried again, and a whole call
/// gives up after four, well inside the functions' 10 s timeout, so the client gets a 503
/// rather than API Gateway's bare 503 after 30 s.
pub fn timeouts() -> TimeoutConfig {
    TimeoutConfig::builder()
        .connect_timeout(Duration::from_secs(1))
        .operation_attempt_timeout(Duration::from_secs(1))
        .operation_timeout(Duration::from_secs(4))
        .build()
}

/// The SDK's own retries of throttling, 5xx answers and timeouts: four attempts, exponential
/// backoff with full jitter from 50 ms (DynamoDB answers in milliseconds; the SDK's general
/// default waits up to a second first), at most a second apart. A retried transaction carries
/// its ClientRequestToken, so DynamoDB applies it once even when an answer was lost.
pub fn retries() -> RetryConfig {
    RetryConfig::standard()
        .with_max_attempts(4)
        .with_initial_backoff(Duration::from_millis(50))
        .with_max_backoff(Duration::from_secs(1))
}

/// The variables that point the SDK at another DynamoDB endpoint (a local engine).
const ENDPOINT_VARIABLES: [&str; 2] = ["AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL"];

/// Refuses an endpoint the SDK would abort on (it panics on an empty one) or send nothing to:
/// set, it must be an `http://` or `https://` URL with a host. Unset is DynamoDB itself.
pub fn check_endpoint(name: &str, value: Option<&str>) -> Result<(), String> {
    let Some(value) = value else {
        return Ok(());
    };
    let host = value
        .strip_prefix("http://")
        .or_else(|| value.strip_prefix("https://"))
        .map(|rest| rest.split(['/', '?', '#']).next().unwrap_or_default());
    match host {
        Some(host) if !host.is_empty() && !host.contains(char::is_whitespace) => Ok(()),
        _ if value.trim().is_empty() => Err(format!(
            "{name} is set but empty: unset it to use DynamoDB, or give the local engine's URL \
             (e.g. http://host.docker.internal:8000 under sam local invoke)"
        )),
        _ => Err(format!(
            "{name} is {value:?}, not an http:// or https:// URL with a host"
        )),
    }
}

/// The endpoint variables as `var` reads them, each checked with [`check_endpoint`].
pub fn check_endpoints(var: impl Fn(&str) -> Option<String>) -> Result<(), String> {
    ENDPOINT_VARIABLES
        .into_iter()
        .try_for_each(|name| check_endpoint(name, var(name).as_deref()))
}

/// What the SDK needs from the Lambda environment: the region (`AWS_REGION`, or
/// `AWS_DEFAULT_REGION`), the execution role's credentials (`AWS_ACCESS_KEY_ID`,
/// `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`; Lambda sets them for the life of the
/// execution environment, as `sam local invoke` does from the caller's), and an endpoint when
/// one is set (`AWS_ENDPOINT_URL_DYNAMODB`, else `AWS_ENDPOINT_URL`: a local engine).
#[derive(Debug)]
pub struct Environment {
    /// The AWS region the client signs for.
    pub region: String,
    /// The credentials it signs with.
    pub credentials: Credentials,
    /// The DynamoDB endpoint, when not the region's own (make dev's engine, a bench's TLS front).
    pub endpoint: Option<String>,
}

impl Environment {
    /// Read with `var`, each missing or malformed variable named in the error.
    pub fn read(var: impl Fn(&str) -> Option<String>) -> Result<Self, String> {
        check_endpoints(&var)?;
        let set = |name: &str| var(name).filter(|value| !value.is_empty());
        let region = set("AWS_REGION")
            .or_else(|| set("AWS_DEFAULT_REGION"))
            .ok_or("environment variable AWS_REGION must be set")?;
        let required =
            |name: &str| set(name).ok_or(format!("environment variable {name} must be set"));
        let credentials = Credentials::new(
            required("AWS_ACCESS_KEY_ID")?,
            required("AWS_SECRET_ACCESS_KEY")?,
            set("AWS_SESSION_TOKEN"),
            None,
            "lambda-environment",
        );
        let endpoint = ENDPOINT_VARIABLES.into_iter().find_map(set);
        Ok(Self {
            region,
            credentials,
            endpoint,
        })
    }

    /// This process's.
    pub fn of_process() -> Result<Self, String> {
        Self::read(|name| std::env::var(name).ok())
    }
}

/// The endpoint of another service when one is set: `variable` (its own, as the SDK names it:
/// `AWS_ENDPOINT_URL_EVENTBRIDGE`), else `AWS_ENDPOINT_URL`; `None` is the region's own.
pub fn endpoint_from_env(variable: &str) -> Option<String> {
    [variable, "AWS_ENDPOINT_URL"].into_iter().find_map(|name| {
        std::env::var(name)
            .ok()
            .filter(|value| !value.trim().is_empty())
    })
}

/// A client of another AWS service (`$sdk`, its SDK crate), configured as the store's DynamoDB
/// client is: the Lambda environment's region and credentials, the same HTTP client and
/// retries, `$timeouts`, and the endpoint `$variable` names when it is set (make dev's local
/// stand-in: [`endpoint_from_env`]).
#[macro_export]
macro_rules! service_client {
    ($sdk:ident, $environment:expr, $timeouts:expr, $variable:literal) => {{
        let environment: &$crate::dynamo::client::Environment = $environment;
        let mut config = $sdk::Config::builder()
            .behavior_version($sdk::config::BehaviorVersion::latest())
            .region($sdk::config::Region::new(environment.region.clone()))
            .credentials_provider(environment.credentials.clone())
            .http_client($crate::dynamo::client::http_client())
            .timeout_config($timeouts)
            .retry_config($crate::dynamo::client::retries());
        config.set_endpoint_url($crate::dynamo::client::endpoint_from_env($variable));
        $sdk::Client::from_conf(config.build())
    }};
}

/// The SDK client for `environment`: the functions' timeouts, retries and HTTP client.
pub fn sdk_client(environment: Environment) -> aws_sdk_dynamodb::Client {
    let mut config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new(environment.region))
        .credentials_provider(environment.credentials)
        .http_client(http_client_built_for(&timeouts()))
        .timeout_config(timeouts())
        .retry_config(retries())
        .interceptor(crate::metrics::DynamoDbOutcomes);
    config.set_endpoint_url(environment.endpoint);
    aws_sdk_dynamodb::Client::from_conf(config.build())
}

/// The store on `table` with the client for `environment`, its connection opened now when
/// `warm_up` says so (`bootstrap::opens_connections_in_init`: under provisioned concurrency and
/// on managed instances, where init runs ahead of traffic, and on-demand at a memory size whose
/// share of the CPU the first request would outrun), else by its first request.
pub async fn connect(environment: Environment, table: String, warm_up: bool) -> Store {
    let store = Store::new(sdk_client(environment), table);
    if warm_up {
        store.warm_up().await;
    }
    store
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_the_sdk_would_abort_on_are_refused_with_their_name() {
        for ok in [
            None,
            Some("http://127.0.0.1:8000"),
            Some("http://host.docker.internal:8000"),
            Some("https://dynamodb.eu-west-1.amazonaws.com/"),
        ] {
            assert_eq!(check_endpoint("E", ok), Ok(()), "{ok:?}");
        }
        for bad in [
            "",
            "  ",
            "localhost:8000",
            "http://",
            "ftp://x",
            "http:// x",
        ] {
            let err = check_endpoint("AWS_ENDPOINT_URL_DYNAMODB", Some(bad)).expect_err(bad);
            assert!(err.starts_with("AWS_ENDPOINT_URL_DYNAMODB is"), "{err}");
        }
    }

    fn environment(vars: &[(&str, &str)]) -> Result<Environment, String> {
        Environment::read(|name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        })
    }

    #[test]
    fn the_environment_is_read_as_lambda_sets_it_and_each_gap_is_named() {
        let lambda = [
            ("AWS_REGION", "eu-west-1"),
            ("AWS_DEFAULT_REGION", "us-east-1"),
            ("AWS_ACCESS_KEY_ID", "ASIAEXAMPLE"),
            ("AWS_SECRET_ACCESS_KEY", "secret"),
            ("AWS_SESSION_TOKEN", "token"),
        ];
        let env = environment(&lambda).expect("complete");
        assert_eq!(env.region, "eu-west-1");
        assert_eq!(env.credentials.access_key_id(), "ASIAEXAMPLE");
        assert_eq!(env.credentials.secret_access_key(), "secret");
        assert_eq!(env.credentials.session_token(), Some("token"));
        assert_eq!(env.endpoint, None);

        let local = [
            ("AWS_DEFAULT_REGION", "us-east-1"),
            ("AWS_ACCESS_KEY_ID", "local"),
            ("AWS_SECRET_ACCESS_KEY", "local"),
            ("AWS_ENDPOINT_URL", "http://other:1"),
            (
                "AWS_ENDPOINT_URL_DYNAMODB",
                "http://host.docker.internal:8000",
            ),
        ];
        let env = environment(&local).expect("complete");
        assert_eq!(
            env.region, "us-east-1",
            "AWS_DEFAULT_REGION when AWS_REGION is unset"
        );
        assert_eq!(env.credentials.session_token(), None);
        assert_eq!(
            env.endpoint.as_deref(),
            Some("http://host.docker.internal:8000"),
            "the service's own endpoint variable wins"
        );

        for missing in ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"] {
            let vars: Vec<_> = lambda
                .iter()
                .copied()
                .filter(|(n, _)| *n != missing)
                .collect();
            assert_eq!(
                environment(&vars).expect_err(missing),
                format!("environment variable {missing} must be set")
            );
        }
        let no_region: Vec<_> = lambda
            .iter()
            .copied()
            .filter(|(n, _)| !n.ends_with("REGION"))
            .collect();
        assert_eq!(
            environment(&no_region).expect_err("no region"),
            "environment variable AWS_REGION must be set"
        );
        let mut empty_endpoint = lambda.to_vec();
        empty_endpoint.push(("AWS_ENDPOINT_URL_DYNAMODB", ""));
        assert!(
            environment(&empty_endpoint)
                .expect_err("empty endpoint")
                .starts_with("AWS_ENDPOINT_URL_DYNAMODB is set but empty")
        );
    }

    /// DER of each certificate in a PEM text.
    fn certificates(pem: &[u8]) -> Vec<Vec<u8>> {
        use rustls::pki_types::CertificateDer;
        use rustls::pki_types::pem::PemObject;
        CertificateDer::pem_slice_iter(pem)
            .map(|cert| cert.expect("well-formed PEM").to_vec())
            .collect()
    }

    #[test]
    fn the_compiled_in_roots_are_the_amazon_trust_services_roots_of_the_public_store() {
        let compiled = certificates(AMAZON_TRUST_SERVICES);
        // Debian's ca-certificates: Mozilla's root store, one file per root.
        let names = [
            "Amazon_Root_CA_1",
            "Amazon_Root_CA_2",
            "Amazon_Root_CA_3",
            "Amazon_Root_CA_4",
            "Starfield_Services_Root_Certificate_Authority_-_G2",
        ];
        let public: Vec<Vec<u8>> = names
            .iter()
            .flat_map(|name| {
                let path = format!("/etc/ssl/certs/{name}.pem");
                certificates(&std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}")))
            })
            .collect();
        assert_eq!(compiled, public);
        let mut roots = rustls::RootCertStore::empty();
        let (valid, invalid) = roots.add_parsable_certificates(
            compiled
                .into_iter()
                .map(rustls::pki_types::CertificateDer::from),
        );
        assert_eq!((valid, invalid), (5, 0), "each one a usable trust anchor");
    }
}
