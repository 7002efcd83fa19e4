//! Counts the requests an SDK client sends, by operation: the proof that each access pattern
//! costs exactly one.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use aws_smithy_runtime_api::box_error::BoxError;
use aws_smithy_runtime_api::client::interceptors::Intercept;
use aws_smithy_runtime_api::client::interceptors::context::BeforeTransmitInterceptorContextRef;
use aws_smithy_runtime_api::client::orchestrator::Metadata;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::config_bag::ConfigBag;

#[derive(Debug, Clone, Default)]
pub struct RequestCounter {
    sent: Arc<Mutex<BTreeMap<String, usize>>>,
}

impl RequestCounter {
    /// Requests sent so far (retries included), by operation name.
    pub fn by_operation(&self) -> BTreeMap<String, usize> {
        self.sent
            .lock()
            .map(|sent| sent.clone())
            .unwrap_or_default()
    }

    pub fn total(&self) -> usize {
        self.by_operation().values().sum()
    }

    pub fn reset(&self) {
        if let Ok(mut sent) = self.sent.lock() {
            sent.clear();
        }
    }
}

impl Intercept for RequestCounter {
    fn name(&self) -> &'static str {
        "RequestCounter"
    }

    // Runs once per attempt, just before it goes on the wire.
    fn read_before_transmit(
        &self,
        _context: &BeforeTransmitInterceptorContextRef<'_>,
        _runtime_components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let operation = cfg
            .load::<Metadata>()
            .map_or("unknown", Metadata::name)
            .to_owned();
        if let Ok(mut sent) = self.sent.lock() {
            *sent.entry(operation).or_default() += 1;
        }
        Ok(())
    }
}
