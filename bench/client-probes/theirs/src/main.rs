//! The base, and async-stripe 0.41 making the same six requests as the store's client: built
//! and measured by `make client-compare`, never part of the store.
use std::collections::HashMap;
use stripe::{
    CancelPaymentIntent, Client, CreatePaymentIntent, CreateRefund, Currency, ListRefunds,
    PaymentIntent, PaymentIntentCaptureMethod, PaymentIntentId, Refund, RefundId,
};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    function_base().await;
    let base = std::env::var("BASE").unwrap_or_else(|_| "http://127.0.0.1:9/v1".into());
    let client = Client::from_url(base.as_str(), "sk_test_x");
    if std::env::var("INIT_ONLY").is_ok() {
        std::hint::black_box(&client);
        return;
    }
    let mut params = CreatePaymentIntent::new(4395, Currency::USD);
    params.capture_method = Some(PaymentIntentCaptureMethod::Automatic);
    params.payment_method_types = Some(vec!["card".into()]);
    params.metadata = Some(HashMap::from([("orderId".into(), "o1".into())]));
    let made = PaymentIntent::create(&client, params).await;
    let id: PaymentIntentId = "pi_1".parse().expect("id");
    let _ = PaymentIntent::retrieve(&client, &id, &[]).await;
    let _ = PaymentIntent::cancel(&client, "pi_1", CancelPaymentIntent::default()).await;
    let mut refund = CreateRefund::new();
    refund.payment_intent = Some(id.clone());
    refund.amount = Some(100);
    let _ = Refund::create(&client, refund).await;
    let mut list = ListRefunds::new();
    list.payment_intent = Some(id);
    let _ = Refund::list(&client, &list).await;
    let rid: RefundId = "re_1".parse().expect("id");
    let _ = Refund::retrieve(&client, &rid, &[]).await;
    println!("{}", made.is_ok());
}

// The base every probe shares: the DynamoDB SDK client, as each function has it.
include!("../../function_base.rs");
