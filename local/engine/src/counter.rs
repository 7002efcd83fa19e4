//! Counts the requests an SDK client sends, by operation: the proof that each access pattern
//! costs exactly one.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use aws_smithy_runtime_api::box_error::BoxError;
use aws_smithy_runtime_api::client::interceptors::Intercept;
use aws_smithy_runtime_api::client::interceptors::context::{
    BeforeDeserializationInterceptorContextRef, BeforeTransmitInterceptorContextRef,
};
use aws_smithy_runtime_api::client::orchestrator::Metadata;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::config_bag::ConfigBag;

#[derive(Debug, Clone, Default)]
pub struct RequestCounter {
    sent: Arc<Mutex<BTreeMap<String, usize>>>,
    /// Requests on the wire now, and the most there have been at once since the last reset.
    in_flight: Arc<Mutex<(usize, usize)>>,
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
        if let Ok(mut in_flight) = self.in_flight.lock() {
            in_flight.1 = in_flight.0;
        }
    }

    /// The most requests that were sent and not yet answered at one time: proof that requests
    /// meant to go at once did.
    pub fn most_at_once(&self) -> usize {
        self.in_flight.lock().map(|f| f.1).unwrap_or_default()
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
        if let Ok(mut in_flight) = self.in_flight.lock() {
            in_flight.0 += 1;
            in_flight.1 = in_flight.1.max(in_flight.0);
        }
        Ok(())
    }

    // Runs once per attempt that got an answer, before it is read.
    fn read_after_transmit(
        &self,
        _context: &BeforeDeserializationInterceptorContextRef<'_>,
        _runtime_components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        if let Ok(mut in_flight) = self.in_flight.lock() {
            in_flight.0 = in_flight.0.saturating_sub(1);
        }
        Ok(())
    }
}
