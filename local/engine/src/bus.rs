//! make dev's and the tests' EventBridge, SQS and SES: moto's server (PyPI `moto[server]`, not
//! written here), run from the repo's virtualenv (`.venv-events`, which `make dev` and `make
//! test` install) on 127.0.0.1, with template.yaml's bus, archive, rules and queues made on it
//! ([`LocalBus::provision`]): the same event patterns, matched by moto as EventBridge matches
//! them. What it sent by email is read back from its own API (`/moto-api/data.json`).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use aws_sdk_sqs::types::QueueAttributeName;
use serde_json::Value;
use serde_yaml::Value as Yaml;

use aws_smithy_runtime_api::client::orchestrator::HttpResponse;
use aws_smithy_runtime_api::client::result::SdkError;
use aws_smithy_types::error::metadata::ProvideErrorMetadata;

use crate::Error;
use crate::faults::Faults;
use crate::stand_in::{self, Process};
use shared::dynamo::client::http_client;

/// Where make dev runs it unless `EVENTS_PORT` says otherwise.
pub const DEFAULT_PORT: u16 = 8430;
/// How long the server may take to start listening.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// `EVENTS_PORT`: the server's port, or `None` for `off` (make dev publishes no events then).
pub fn port_from_env() -> Result<Option<u16>, Error> {
    stand_in::port_from_env("EVENTS_PORT", DEFAULT_PORT)
}

/// The server; stopped when dropped, if this process started it.
#[derive(Debug)]
pub struct LocalBus {
    _process: Option<Process>,
    /// `http://127.0.0.1:<port>`.
    pub base: String,
}

/// What [`LocalBus::provision`] made of the template: the bus's name, and each queue's URL by
/// its logical ID.
#[derive(Debug, Clone, Default)]
pub struct Provisioned {
    /// The bus's name.
    pub bus: String,
    /// Queue URLs by the template's logical IDs.
    pub queues: BTreeMap<String, String>,
    /// The rules made, by logical ID.
    pub rules: Vec<String>,
    /// Bucket names by the template's logical IDs.
    pub buckets: BTreeMap<String, String>,
}

impl Provisioned {
    /// The URL of the queue the template calls `logical_id`.
    pub fn queue(&self, logical_id: &str) -> Result<&str, Error> {
        self.queues
            .get(logical_id)
            .map(String::as_str)
            .ok_or_else(|| format!("template.yaml makes no queue {logical_id}").into())
    }
}

/// An email the server took, as its API reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentEmail {
    /// The service's ID for it.
    pub id: String,
    /// From.
    pub source: String,
    /// To.
    pub to: Vec<String>,
    /// Its subject.
    pub subject: String,
    /// Its text.
    pub body: String,
}

impl LocalBus {
    /// The server on 127.0.0.1:`port`, logging to `log`. Fails, saying what to run, when the
    /// virtualenv is missing.
    pub fn start(port: u16, log: &Path) -> Result<Self, Error> {
        let root = stand_in::repo_root();
        let python = root.join(".venv-events/bin/python");
        if !python.exists() {
            return Err(format!(
                "{} is missing: `make dev` installs moto into it (or set EVENTS_PORT=off)",
                python.display()
            )
            .into());
        }
        // A server already on the port would be taken for this one.
        std::net::TcpListener::bind(("127.0.0.1", port))
            .map_err(|err| format!("the events' port {port} is taken ({err}): set EVENTS_PORT"))?;
        let log = std::fs::File::create(log)?;
        let child = Command::new(&python)
            .arg(root.join("local/events_server.py"))
            .arg(port.to_string())
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()
            .map_err(|err| format!("cannot start {}: {err}", python.display()))?;
        let bus = Self {
            _process: Some(Process(child)),
            base: format!("http://127.0.0.1:{port}"),
        };
        stand_in::wait_until_listening(port, "moto", START_TIMEOUT)?;
        Ok(bus)
    }

    /// A server running already at `base` (`http://host:port`), started by someone else: left
    /// running when dropped.
    pub fn at(base: &str) -> Self {
        Self {
            _process: None,
            base: base.trim_end_matches('/').to_owned(),
        }
    }

    /// A fresh server on a free port, its log in the system's temporary folder: each test owns
    /// its own.
    /// The port is free when picked, but tests running at once open connections all the time,
    /// and one may take it as its own end before moto binds it (moto then never listens): then
    /// another port is picked.
    pub fn for_test() -> Result<Self, Error> {
        let mut attempts = 0;
        loop {
            let port = std::net::TcpListener::bind("127.0.0.1:0")?
                .local_addr()?
                .port();
            let log = std::env::temp_dir().join(format!("moto-{port}.log"));
            match Self::start(port, &log) {
                Err(err) if attempts < 4 && !err.to_string().contains("is missing") => {
                    attempts += 1;
                }
                started => return started,
            }
        }
    }

    /// A fresh server of the test's own ([`Self::for_test`]) with template.yaml's resources made
    /// on it ([`Self::provision`], its parameters at their defaults but for `parameters`): where
    /// each test of the bus, the emails or the pictures starts.
    pub async fn provisioned_for_test(
        parameters: &[(&str, &str)],
    ) -> Result<(Self, Provisioned), Error> {
        let bus = tokio::task::spawn_blocking(Self::for_test).await??;
        let made = bus
            .provision(&crate::template::parse()?, parameters)
            .await?;
        Ok((bus, made))
    }

    /// An EventBridge client of the server.
    pub fn eventbridge(&self) -> aws_sdk_eventbridge::Client {
        local_client!(
            aws_sdk_eventbridge,
            &self.base,
            http_client(),
            local_timeouts()
        )
    }

    /// An EventBridge client of the server whose requests pass through `faults` first.
    pub fn eventbridge_through(&self, faults: &Faults) -> aws_sdk_eventbridge::Client {
        local_client!(
            aws_sdk_eventbridge,
            &self.base,
            faults.client(http_client()),
            local_timeouts()
        )
    }

    /// An SQS client of the server.
    pub fn sqs(&self) -> aws_sdk_sqs::Client {
        local_client!(aws_sdk_sqs, &self.base, http_client(), local_timeouts())
    }

    /// An S3 client of the server (buckets by path, as one host serves them all).
    pub fn s3(&self) -> aws_sdk_s3::Client {
        let config = aws_sdk_s3::Config::builder()
            .behavior_version(aws_sdk_s3::config::BehaviorVersion::latest())
            .region(aws_sdk_s3::config::Region::new(REGION))
            .credentials_provider(local_credentials())
            .endpoint_url(&self.base)
            .force_path_style(true)
            .http_client(http_client())
            .retry_config(shared::dynamo::client::retries())
            .build();
        aws_sdk_s3::Client::from_conf(config)
    }

    /// The template's bucket `logical_id` as the functions reach it: on this server.
    pub fn media_bucket(
        &self,
        made: &Provisioned,
        logical_id: &str,
    ) -> Result<shared::media::MediaBucket, Error> {
        let name = made
            .buckets
            .get(logical_id)
            .ok_or_else(|| format!("template.yaml makes no bucket {logical_id}"))?;
        Ok(shared::media::MediaBucket::new(
            REGION,
            local_credentials(),
            Some(self.base.clone()),
            name.clone(),
        ))
    }

    /// An SES v2 client of the server.
    pub fn sesv2(&self) -> aws_sdk_sesv2::Client {
        local_client!(aws_sdk_sesv2, &self.base, http_client(), local_timeouts())
    }

    /// An SES v2 client of the server whose requests pass through `faults` first.
    pub fn sesv2_through(&self, faults: &Faults) -> aws_sdk_sesv2::Client {
        local_client!(
            aws_sdk_sesv2,
            &self.base,
            faults.client(http_client()),
            local_timeouts()
        )
    }

    /// template.yaml's queues, bus, archive and rules (with their targets) made on the server,
    /// its parameters at their defaults but for `parameters`; resources whose condition does
    /// not hold are left out. The email sender, when given, is made an identity SES sends from.
    pub async fn provision(
        &self,
        template: &Yaml,
        parameters: &[(&str, &str)],
    ) -> Result<Provisioned, Error> {
        let stack = Stack::new(template, parameters);
        let mut made = Provisioned::default();
        let mut arns = BTreeMap::new();
        for (id, resource) in stack.resources("AWS::SQS::Queue") {
            let url = self.create_queue(&id, &resource["Properties"]).await?;
            arns.insert(id.clone(), self.queue_arn(&url).await?);
            made.queues.insert(id, url);
        }
        for (id, resource) in stack.resources("AWS::SQS::Queue") {
            let redrive = &resource["Properties"]["RedrivePolicy"];
            if !redrive.is_null() {
                let policy = serde_json::json!({
                    "deadLetterTargetArn": stack.resolve(&redrive["deadLetterTargetArn"], &arns)?,
                    "maxReceiveCount": redrive["maxReceiveCount"].as_u64().unwrap_or(5).to_string(),
                });
                self.sqs()
                    .set_queue_attributes()
                    .queue_url(made.queue(&id)?)
                    .attributes(QueueAttributeName::RedrivePolicy, policy.to_string())
                    .send()
                    .await?;
            }
        }
        for (id, resource) in stack.resources("AWS::S3::Bucket") {
            let name = self.create_bucket(&id, &resource["Properties"]).await?;
            made.buckets.insert(id, name);
        }
        for (id, resource) in stack.resources("AWS::Events::EventBus") {
            let name = stack.resolve(&resource["Properties"]["Name"], &arns)?;
            let created = self
                .eventbridge()
                .create_event_bus()
                .name(&name)
                .send()
                .await;
            unless_made_already(created)?;
            let described = self
                .eventbridge()
                .describe_event_bus()
                .name(&name)
                .send()
                .await?;
            arns.insert(id, described.arn().unwrap_or_default().to_owned());
            made.bus = name;
        }
        for (id, resource) in stack.resources("AWS::Events::Archive") {
            let props = &resource["Properties"];
            let pattern = serde_json::to_value(&props["EventPattern"])?;
            let created = self
                .eventbridge()
                .create_archive()
                .archive_name(&id)
                .event_source_arn(stack.resolve(&props["SourceArn"], &arns)?)
                .event_pattern(pattern.to_string())
                .send()
                .await;
            unless_made_already(created)?;
        }
        for (id, resource) in stack.resources("AWS::Events::Rule") {
            self.put_rule(&stack, &id, &resource["Properties"], &arns)
                .await?;
            made.rules.push(id);
        }
        if let Some(sender) = stack.parameter("EmailSender").filter(|s| !s.is_empty()) {
            let created = self
                .sesv2()
                .create_email_identity()
                .email_identity(sender)
                .send()
                .await;
            unless_made_already(created)?;
        }
        Ok(made)
    }

    async fn create_queue(&self, id: &str, props: &Yaml) -> Result<String, Error> {
        let mut create = self.sqs().create_queue().queue_name(id);
        for (name, attribute) in [
            ("VisibilityTimeout", QueueAttributeName::VisibilityTimeout),
            (
                "MessageRetentionPeriod",
                QueueAttributeName::MessageRetentionPeriod,
            ),
        ] {
            if let Some(value) = props[name].as_u64() {
                create = create.attributes(attribute, value.to_string());
            }
        }
        let out = create.send().await?;
        Ok(out.queue_url().unwrap_or_default().to_owned())
    }

    /// Bucket `id` (named [`bucket_name`]), told to send its objects' events to EventBridge
    /// when the template says so.
    async fn create_bucket(&self, id: &str, props: &Yaml) -> Result<String, Error> {
        let name = bucket_name(id);
        let created = self.s3().create_bucket().bucket(&name).send().await;
        if let Err(err) = created {
            let code = err.as_service_error().and_then(ProvideErrorMetadata::code);
            if !matches!(
                code,
                Some("BucketAlreadyOwnedByYou" | "BucketAlreadyExists")
            ) {
                return Err(err.into());
            }
        }
        let notifications = &props["NotificationConfiguration"]["EventBridgeConfiguration"];
        if notifications["EventBridgeEnabled"].as_bool() == Some(true) {
            let config = aws_sdk_s3::types::NotificationConfiguration::builder()
                .event_bridge_configuration(
                    aws_sdk_s3::types::EventBridgeConfiguration::builder().build(),
                )
                .build();
            self.s3()
                .put_bucket_notification_configuration()
                .bucket(&name)
                .notification_configuration(config)
                .send()
                .await?;
        }
        Ok(name)
    }

    async fn queue_arn(&self, url: &str) -> Result<String, Error> {
        let out = self
            .sqs()
            .get_queue_attributes()
            .queue_url(url)
            .attribute_names(QueueAttributeName::QueueArn)
            .send()
            .await?;
        out.attributes()
            .and_then(|a| a.get(&QueueAttributeName::QueueArn))
            .cloned()
            .ok_or_else(|| format!("queue {url} has no ARN").into())
    }

    async fn put_rule(
        &self,
        stack: &Stack<'_>,
        id: &str,
        props: &Yaml,
        arns: &BTreeMap<String, String>,
    ) -> Result<(), Error> {
        // A rule without a bus is on the account's default bus (where AWS services send).
        let bus = match &props["EventBusName"] {
            Yaml::Null => "default".to_owned(),
            named => stack.resolve(named, arns)?,
        };
        let pattern = stack.pattern(&props["EventPattern"], arns)?.to_string();
        self.eventbridge()
            .put_rule()
            .name(id)
            .event_bus_name(&bus)
            .event_pattern(pattern)
            .send()
            .await?;
        let mut targets = Vec::new();
        for target in props["Targets"].as_sequence().into_iter().flatten() {
            let mut built = aws_sdk_eventbridge::types::Target::builder()
                .id(target["Id"].as_str().unwrap_or("target"))
                .arn(stack.resolve(&target["Arn"], arns)?);
            if !target["DeadLetterConfig"].is_null() {
                let dead = stack.resolve(&target["DeadLetterConfig"]["Arn"], arns)?;
                built = built.dead_letter_config(
                    aws_sdk_eventbridge::types::DeadLetterConfig::builder()
                        .arn(dead)
                        .build(),
                );
            }
            targets.push(built.build()?);
        }
        self.eventbridge()
            .put_targets()
            .rule(id)
            .event_bus_name(bus)
            .set_targets(Some(targets))
            .send()
            .await?;
        Ok(())
    }

    /// A queue of the caller's own, named `name`, that every event of `source` on `bus` reaches
    /// through a rule of the same name: a tap on the bus (`make events`, the tests).
    pub async fn tap(&self, bus: &str, name: &str, source: &str) -> Result<String, Error> {
        let url = self
            .sqs()
            .create_queue()
            .queue_name(name)
            .send()
            .await?
            .queue_url()
            .unwrap_or_default()
            .to_owned();
        let arn = self.queue_arn(&url).await?;
        self.eventbridge()
            .put_rule()
            .name(name)
            .event_bus_name(bus)
            .event_pattern(serde_json::json!({"source": [source]}).to_string())
            .send()
            .await?;
        self.eventbridge()
            .put_targets()
            .rule(name)
            .event_bus_name(bus)
            .targets(
                aws_sdk_eventbridge::types::Target::builder()
                    .id(name)
                    .arn(arn)
                    .build()?,
            )
            .send()
            .await?;
        Ok(url)
    }

    /// The bodies of what `queue_url` holds now, up to ten, waiting up to `wait` for the first:
    /// received and deleted (each is read once).
    pub async fn take(&self, queue_url: &str, wait: Duration) -> Result<Vec<String>, Error> {
        let sqs = self.sqs();
        let out = sqs
            .receive_message()
            .queue_url(queue_url)
            .max_number_of_messages(10)
            .wait_time_seconds(i32::try_from(wait.as_secs()).unwrap_or(20).min(20))
            .send()
            .await?;
        let mut bodies = Vec::new();
        for message in out.messages() {
            if let Some(handle) = message.receipt_handle() {
                sqs.delete_message()
                    .queue_url(queue_url)
                    .receipt_handle(handle)
                    .send()
                    .await?;
            }
            bodies.push(message.body().unwrap_or_default().to_owned());
        }
        Ok(bodies)
    }

    /// Every email the server has taken, oldest first.
    pub fn emails(&self) -> Result<Vec<SentEmail>, Error> {
        let authority = self.base.trim_start_matches("http://");
        let request = format!(
            "GET /moto-api/data.json HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
        );
        let (status, body) = crate::plain_http::exchange(authority, request.as_bytes(), "moto")?;
        if status != 200 {
            return Err(format!("moto's data answered {status}").into());
        }
        let data: Value = serde_json::from_str(&body)?;
        let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
        Ok(data["ses"]["Message"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|m| SentEmail {
                id: text(&m["id"]),
                source: text(&m["source"]),
                to: m["destinations"]["ToAddresses"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(text)
                    .collect(),
                subject: text(&m["subject"]),
                body: text(&m["body"]),
            })
            .collect())
    }
}

/// How long the local server may take: a long poll of a queue waits up to 20 s for its first
/// message, and moto, one Python process, answers in seconds rather than milliseconds when
/// the machine is busy (the functions' one-second attempts are the real services' measure).
fn local_timeouts() -> aws_sdk_sqs::config::timeout::TimeoutConfig {
    aws_sdk_sqs::config::timeout::TimeoutConfig::builder()
        .connect_timeout(Duration::from_secs(1))
        .operation_attempt_timeout(Duration::from_secs(25))
        .build()
}

/// A client of the local server over `$http`, with `$timeouts`: any credentials, us-east-1, the
/// functions' retries.
macro_rules! local_client {
    ($sdk:ident, $base:expr, $http:expr, $timeouts:expr) => {{
        let config = $sdk::Config::builder()
            .behavior_version($sdk::config::BehaviorVersion::latest())
            .region($sdk::config::Region::new("us-east-1"))
            .credentials_provider($sdk::config::Credentials::new(
                "local", "local", None, None, "local",
            ))
            .endpoint_url($base)
            .http_client($http)
            .timeout_config($timeouts)
            .retry_config(shared::dynamo::client::retries())
            .build();
        $sdk::Client::from_conf(config)
    }};
}
use local_client;

/// The local region.
const REGION: &str = "us-east-1";

/// The server's credentials (it checks none).
fn local_credentials() -> aws_sdk_s3::config::Credentials {
    aws_sdk_s3::config::Credentials::new("local", "local", None, None, "local")
}

/// A bucket's local name: its logical ID in lower case (bucket names have no capitals).
pub fn bucket_name(logical_id: &str) -> String {
    format!("store-{}", logical_id.to_lowercase())
}

/// A create's outcome, where "it exists already" is success: provisioning a server that runs
/// on (one a second make dev shares) makes nothing twice.
fn unless_made_already<T, E>(sent: Result<T, SdkError<E, HttpResponse>>) -> Result<(), Error>
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
{
    match sent {
        Ok(_) => Ok(()),
        Err(err)
            if err
                .as_service_error()
                .and_then(ProvideErrorMetadata::code)
                .is_some_and(|code| code.contains("AlreadyExists")) =>
        {
            Ok(())
        }
        Err(err) => Err(err.into()),
    }
}

/// The template as a stack deploys it: its parameters' values, its conditions, and the values
/// of `!Ref` and `!GetAtt` this module needs.
struct Stack<'a> {
    template: &'a Yaml,
    parameters: BTreeMap<String, String>,
}

impl<'a> Stack<'a> {
    fn new(template: &'a Yaml, overrides: &[(&str, &str)]) -> Self {
        let mut parameters = BTreeMap::new();
        for (name, parameter) in template["Parameters"].as_mapping().into_iter().flatten() {
            let default = match &parameter["Default"] {
                Yaml::String(text) => text.clone(),
                Yaml::Number(n) => n.to_string(),
                _ => String::new(),
            };
            parameters.insert(name.as_str().unwrap_or_default().to_owned(), default);
        }
        for (name, value) in overrides {
            parameters.insert((*name).to_owned(), (*value).to_owned());
        }
        Self {
            template,
            parameters,
        }
    }

    fn parameter(&self, name: &str) -> Option<&str> {
        self.parameters.get(name).map(String::as_str)
    }

    /// The resources of `kind` whose condition holds, by logical ID.
    fn resources(&self, kind: &str) -> Vec<(String, &'a Yaml)> {
        self.template["Resources"]
            .as_mapping()
            .into_iter()
            .flatten()
            .filter(|(_, r)| r["Type"].as_str() == Some(kind))
            .filter(|(_, r)| {
                r["Condition"]
                    .as_str()
                    .is_none_or(|name| self.condition(name))
            })
            .map(|(id, r)| (id.as_str().unwrap_or_default().to_owned(), r))
            .collect()
    }

    /// Whether the template's condition `name` holds: `!Equals`, `!Not`, `!And`, `!Or` and
    /// `!Condition` over parameters.
    fn condition(&self, name: &str) -> bool {
        self.holds(&self.template["Conditions"][name])
    }

    fn holds(&self, expression: &Yaml) -> bool {
        let Yaml::Tagged(tagged) = expression else {
            return false;
        };
        let items = tagged.value.as_sequence().cloned().unwrap_or_default();
        match tagged.tag.to_string().trim_start_matches('!') {
            "Equals" => {
                let values: Vec<String> = items.iter().map(|v| self.text(v)).collect();
                values.len() == 2 && values[0] == values[1]
            }
            "Not" => !items.first().is_some_and(|v| self.holds(v)),
            "And" => items.iter().all(|v| self.holds(v)),
            "Or" => items.iter().any(|v| self.holds(v)),
            "Condition" => self.condition(tagged.value.as_str().unwrap_or_default()),
            _ => false,
        }
    }

    fn text(&self, value: &Yaml) -> String {
        match value {
            Yaml::Tagged(tagged) if tagged.tag == "Ref" => self
                .parameter(tagged.value.as_str().unwrap_or_default())
                .unwrap_or_default()
                .to_owned(),
            Yaml::String(text) => text.clone(),
            other => serde_yaml::to_string(other)
                .unwrap_or_default()
                .trim()
                .to_owned(),
        }
    }

    /// An event pattern as JSON, its `!Ref`s resolved.
    fn pattern(
        &self,
        value: &Yaml,
        arns: &BTreeMap<String, String>,
    ) -> Result<serde_json::Value, Error> {
        Ok(match value {
            Yaml::Tagged(_) => Value::String(self.resolve(value, arns)?),
            Yaml::Sequence(items) => Value::Array(
                items
                    .iter()
                    .map(|item| self.pattern(item, arns))
                    .collect::<Result<_, _>>()?,
            ),
            Yaml::Mapping(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| {
                        Ok((
                            k.as_str().unwrap_or_default().to_owned(),
                            self.pattern(v, arns)?,
                        ))
                    })
                    .collect::<Result<_, Error>>()?,
            ),
            other => serde_json::to_value(other)?,
        })
    }

    /// A property's value: a string, a parameter's or a made resource's `!Ref` (a bus: its
    /// name), or a made resource's `!GetAtt <id>.Arn`.
    fn resolve(&self, value: &Yaml, arns: &BTreeMap<String, String>) -> Result<String, Error> {
        match value {
            Yaml::String(text) => Ok(text.clone()),
            Yaml::Tagged(tagged) if tagged.tag == "Ref" => {
                let name = tagged.value.as_str().unwrap_or_default();
                if let Some(value) = self.parameter(name) {
                    return Ok(value.to_owned());
                }
                let resource = &self.template["Resources"][name];
                match resource["Type"].as_str() {
                    Some("AWS::Events::EventBus") => {
                        self.resolve(&resource["Properties"]["Name"], arns)
                    }
                    Some("AWS::S3::Bucket") => Ok(bucket_name(name)),
                    _ => Err(format!("!Ref {name}: not a parameter or a bus").into()),
                }
            }
            Yaml::Tagged(tagged) if tagged.tag == "GetAtt" => {
                let target = tagged.value.as_str().unwrap_or_default();
                let id = target
                    .strip_suffix(".Arn")
                    .ok_or_else(|| format!("!GetAtt {target}"))?;
                arns.get(id)
                    .cloned()
                    .ok_or_else(|| format!("!GetAtt {target}: {id} is not made yet").into())
            }
            other => Err(format!("cannot resolve {other:?}").into()),
        }
    }
}
