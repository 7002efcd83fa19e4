//! The base, and the store's own client making its six requests (`make client-compare`).
use payment_provider::Provider;
use shared::domain::checkout::Currency;
use shared::domain::ids::{CustomerId, OrderId, PaymentId, ProviderRefundId, RefundId};
use shared::domain::refund::{Refund, RefundKind};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    function_base().await;
    let base = std::env::var("BASE").unwrap_or_else(|_| "http://127.0.0.1:9".into());
    let provider = Provider::new(&base, "sk_test_x");
    if std::env::var("INIT_ONLY").is_ok() {
        // Its HTTP client is built by the first request: one to where nothing listens builds
        // it (the TLS roots included) and is refused at once, as async-stripe's is built here.
        provider.warm_up().await;
        std::hint::black_box(&provider);
        return;
    }
    let order = OrderId::parse("o1").expect("id");
    let intent = PaymentId::parse("pi_1").expect("id");
    let currency = Currency::parse("usd").expect("currency");
    let customer = CustomerId::parse("c1").expect("id");
    let made = provider
        .create_payment_intent(&order, &customer, 4395, &currency)
        .await;
    let _ = provider.retrieve_payment_intent(&intent).await;
    let _ = provider.cancel_payment_intent(&intent).await;
    let refund = Refund::requested(
        RefundId::parse("rf_1").expect("id"),
        Some(order),
        intent,
        100,
        "usd",
        RefundKind::Staff,
        "x".into(),
    );
    let _ = provider.create_refund(&refund).await;
    let _ = provider.find_refund(&refund).await;
    let _ = provider
        .retrieve_refund(&ProviderRefundId::parse("re_1").expect("id"))
        .await;
    println!("{}", made.is_ok());
}

// The base every probe shares: the DynamoDB SDK client, as each function has it.
include!("../../function_base.rs");
