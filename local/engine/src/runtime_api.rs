//! A minimal Lambda Runtime API, enough to drive a real function process the way Lambda (and
//! `sam local invoke`) does: the process asks for its next event, the caller hands one out and
//! waits for the response. `make bench` times the binaries through it; tests check that the
//! built binaries answer the events in `events/`.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use tokio::process::{Child, Command};
use tokio::sync::{mpsc, oneshot, watch};

pub use shared::domain::error::BoxError as Error;

/// What the function answered, and when the answer arrived.
pub struct Reply {
    pub body: Bytes,
    pub ok: bool,
    pub at: Instant,
}

struct Invocation {
    event: Bytes,
    reply: oneshot::Sender<Reply>,
}

#[derive(Clone)]
struct Shared {
    queue: Arc<tokio::sync::Mutex<mpsc::UnboundedReceiver<Invocation>>>,
    waiting: Arc<Mutex<HashMap<String, oneshot::Sender<Reply>>>>,
    /// When the process first asked for an event: the end of its init.
    first_next: Arc<watch::Sender<Option<Instant>>>,
    next_id: Arc<Mutex<u64>>,
}

/// One Runtime API, for one function process.
pub struct RuntimeApi {
    pub addr: SocketAddr,
    sender: Option<mpsc::UnboundedSender<Invocation>>,
    first_next: watch::Receiver<Option<Instant>>,
    server: tokio::task::JoinHandle<()>,
}

impl RuntimeApi {
    pub async fn start() -> Result<Self, Error> {
        let (sender, receiver) = mpsc::unbounded_channel();
        let (first_next_sender, first_next) = watch::channel(None);
        let shared = Shared {
            queue: Arc::new(tokio::sync::Mutex::new(receiver)),
            waiting: Arc::default(),
            first_next: Arc::new(first_next_sender),
            next_id: Arc::default(),
        };
        let app = Router::new()
            .route("/2018-06-01/runtime/invocation/next", get(next))
            .route(
                "/2018-06-01/runtime/invocation/{id}/response",
                post(response),
            )
            .route("/2018-06-01/runtime/invocation/{id}/error", post(error))
            .route("/2018-06-01/runtime/init/error", post(init_error))
            .with_state(shared);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(Self {
            addr,
            sender: Some(sender),
            first_next,
            server,
        })
    }

    /// Queues `event`; resolves with the function's reply.
    pub fn invoke(&self, event: Bytes) -> oneshot::Receiver<Reply> {
        let (reply, answer) = oneshot::channel();
        if let Some(sender) = &self.sender {
            let _ = sender.send(Invocation { event, reply });
        }
        answer
    }

    /// No more events: the next `GET /next` is answered 410, and the runtime exits (as it
    /// would never do on Lambda, but a profiler needs the process to end by itself).
    pub fn close(&mut self) {
        self.sender = None;
    }

    /// When the process first asked for an event.
    pub fn ready_at(&self) -> Option<Instant> {
        *self.first_next.borrow()
    }

    /// Waits for the process's first `GET /next` (the end of its init), and says when it came;
    /// `None` if the API stopped first.
    pub async fn ready(&self) -> Option<Instant> {
        let mut first_next = self.first_next.clone();
        *first_next.wait_for(Option::is_some).await.ok()?
    }

    /// Starts `command` as the function process this API serves: its output discarded, and
    /// killed if dropped.
    pub fn spawn(&self, command: Command) -> std::io::Result<Child> {
        self.spawn_with_stdout(command, Stdio::null())
    }

    /// [`RuntimeApi::spawn`], its stdout going to `stdout` (the lines Lambda sends to CloudWatch
    /// Logs).
    pub fn spawn_with_stdout(&self, command: Command, stdout: Stdio) -> std::io::Result<Child> {
        self.spawn_with(command, Stdio::null(), stdout)
    }

    /// [`RuntimeApi::spawn`] with `stdin` and `stdout` of the caller's choosing (a launcher
    /// that waits for a line before it execs the function reads stdin).
    pub fn spawn_with(
        &self,
        mut command: Command,
        stdin: Stdio,
        stdout: Stdio,
    ) -> std::io::Result<Child> {
        command
            .env("AWS_LAMBDA_RUNTIME_API", self.addr.to_string())
            .stdin(stdin)
            .stdout(stdout)
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
    }

    /// Closes the API and lets `child` end by itself (a profiler writes its counts then);
    /// kills it if it has not within 30 s.
    pub async fn close_and_wait(&mut self, child: &mut Child) -> Result<(), Error> {
        self.close();
        if tokio::time::timeout(Duration::from_secs(30), child.wait())
            .await
            .is_err()
        {
            child.kill().await?;
        }
        Ok(())
    }
}

impl Drop for RuntimeApi {
    fn drop(&mut self) {
        self.server.abort();
    }
}

async fn next(State(shared): State<Shared>) -> impl IntoResponse {
    shared.first_next.send_if_modified(|first| {
        let unset = first.is_none();
        if unset {
            *first = Some(Instant::now());
        }
        unset
    });
    let Some(invocation) = shared.queue.lock().await.recv().await else {
        return (StatusCode::GONE, HeaderMap::new(), Bytes::new());
    };
    let id = {
        let mut n = shared.next_id.lock().unwrap_or_else(|e| e.into_inner());
        *n += 1;
        format!("local-{n}")
    };
    shared
        .waiting
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(id.clone(), invocation.reply);
    let mut headers = HeaderMap::new();
    headers.insert("content-type", HeaderValue::from_static("application/json"));
    let deadline = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() + 30_000);
    for (name, value) in [
        ("lambda-runtime-aws-request-id", id),
        ("lambda-runtime-deadline-ms", deadline.to_string()),
        (
            "lambda-runtime-invoked-function-arn",
            "arn:aws:lambda:us-east-1:123456789012:function:local".to_owned(),
        ),
        (
            "lambda-runtime-trace-id",
            "Root=1-00000000-000000000000000000000000".to_owned(),
        ),
    ] {
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.insert(name, value);
        }
    }
    (StatusCode::OK, headers, invocation.event)
}

fn answer(shared: &Shared, id: &str, body: Bytes, ok: bool) -> StatusCode {
    let at = Instant::now();
    let waiting = shared
        .waiting
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(id);
    match waiting {
        Some(reply) => {
            let _ = reply.send(Reply { body, ok, at });
            StatusCode::ACCEPTED
        }
        None => StatusCode::BAD_REQUEST,
    }
}

async fn response(State(shared): State<Shared>, Path(id): Path<String>, body: Bytes) -> StatusCode {
    answer(&shared, &id, body, true)
}

async fn error(State(shared): State<Shared>, Path(id): Path<String>, body: Bytes) -> StatusCode {
    answer(&shared, &id, body, false)
}

async fn init_error(body: Bytes) -> StatusCode {
    eprintln!("init error: {}", String::from_utf8_lossy(&body));
    StatusCode::ACCEPTED
}

/// The environment Lambda gives a function process (and nothing else): its identity, the log
/// settings, a region and credentials in variables, the store's variables, and `endpoint` as
/// the DynamoDB endpoint. Its memory size is a whole vCPU's, 1,769 MB, since the process runs
/// on a whole core here; what models another size sets it (the bench's memory section, the
/// tests of the warm-up by size).
pub fn lambda_environment(
    command: &mut Command,
    function: &str,
    endpoint: &str,
    home: &std::path::Path,
) {
    command
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("AWS_LAMBDA_FUNCTION_NAME", function)
        .env("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST")
        .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "1769")
        .env("AWS_LAMBDA_INITIALIZATION_TYPE", "on-demand")
        .env(
            "AWS_LAMBDA_LOG_GROUP_NAME",
            format!("/aws/lambda/{function}"),
        )
        .env("AWS_LAMBDA_LOG_STREAM_NAME", "local")
        .env("AWS_LAMBDA_LOG_FORMAT", "JSON")
        .env("AWS_REGION", "us-east-1")
        .env("AWS_DEFAULT_REGION", "us-east-1")
        .env("AWS_ACCESS_KEY_ID", "local")
        .env("AWS_SECRET_ACCESS_KEY", "local")
        .env("AWS_ENDPOINT_URL_DYNAMODB", endpoint)
        .env("TABLE_NAME", crate::LOCAL_TABLE);
}

/// A function's built binary running against its own Runtime API, as Lambda and
/// `sam local invoke` run it.
pub struct LambdaProcess {
    api: RuntimeApi,
    child: Child,
    home: std::path::PathBuf,
    /// What the process prints, read as it prints it ([`LambdaProcess::start_logged`]).
    output: Option<tokio::task::JoinHandle<std::io::Result<String>>>,
}

impl LambdaProcess {
    /// Starts `binary` as `function` with Lambda's environment and `endpoint` as DynamoDB.
    pub async fn start(
        binary: &std::path::Path,
        function: &str,
        endpoint: &str,
    ) -> Result<Self, Error> {
        Self::launch(binary, function, endpoint, None, &[]).await
    }

    /// [`LambdaProcess::start`], with `environment` set on top of Lambda's (a kind of init, a
    /// provider's address).
    pub async fn start_with(
        binary: &std::path::Path,
        function: &str,
        endpoint: &str,
        environment: &[(&str, &str)],
    ) -> Result<Self, Error> {
        Self::launch(binary, function, endpoint, None, environment).await
    }

    /// Waits for the end of the process's init: its first `GET /invocation/next`.
    pub async fn initialised(&self) -> Result<(), Error> {
        let ready = tokio::time::timeout(Duration::from_secs(30), self.api.ready());
        match ready.await {
            Ok(Some(_)) => Ok(()),
            Ok(None) => Err("the Runtime API stopped during init".into()),
            Err(_) => Err("init took over 30 s".into()),
        }
    }

    /// [`LambdaProcess::start`], logging at `level` and keeping what it prints for
    /// [`LambdaProcess::stop_and_read_output`].
    pub async fn start_logged(
        binary: &std::path::Path,
        function: &str,
        endpoint: &str,
        level: &str,
    ) -> Result<Self, Error> {
        Self::launch(binary, function, endpoint, Some(level), &[]).await
    }

    async fn launch(
        binary: &std::path::Path,
        function: &str,
        endpoint: &str,
        logged_at: Option<&str>,
        environment: &[(&str, &str)],
    ) -> Result<Self, Error> {
        let api = RuntimeApi::start().await?;
        let home = std::env::temp_dir().join(format!(
            "lambda-home-{}-{function}-{}",
            std::process::id(),
            api.addr.port()
        ));
        std::fs::create_dir_all(&home)?;
        let mut command = Command::new(binary);
        lambda_environment(&mut command, function, endpoint, &home);
        command.envs(environment.iter().copied());
        let Some(level) = logged_at else {
            let child = api.spawn(command)?;
            return Ok(Self {
                api,
                child,
                home,
                output: None,
            });
        };
        command.env("AWS_LAMBDA_LOG_LEVEL", level);
        let mut child = api.spawn_with_stdout(command, Stdio::piped())?;
        let mut stdout = child.stdout.take().ok_or("no stdout")?;
        // Read as it comes: a full pipe would stop the process mid-invocation.
        let output = tokio::spawn(async move {
            use tokio::io::AsyncReadExt;
            let mut text = String::new();
            stdout.read_to_string(&mut text).await?;
            Ok(text)
        });
        Ok(Self {
            api,
            child,
            home,
            output: Some(output),
        })
    }

    /// Hands `event` to the function and waits (at most 30 s) for what it answers.
    pub async fn invoke(&self, event: impl Into<Bytes>) -> Result<Reply, Error> {
        let reply = self.api.invoke(event.into());
        Ok(tokio::time::timeout(Duration::from_secs(30), reply).await??)
    }

    /// Stops the process; every line it printed on stdout.
    pub async fn stop_and_read_output(mut self) -> Result<Vec<String>, Error> {
        self.api.close_and_wait(&mut self.child).await?;
        let output = self
            .output
            .take()
            .ok_or("started without keeping its output")?;
        let text = output.await??;
        let _ = std::fs::remove_dir_all(&self.home);
        Ok(text.lines().map(str::to_owned).collect())
    }

    /// Closes the Runtime API and waits for the process to end.
    pub async fn stop(mut self) -> Result<(), Error> {
        self.api.close_and_wait(&mut self.child).await?;
        let _ = std::fs::remove_dir_all(&self.home);
        Ok(())
    }
}
