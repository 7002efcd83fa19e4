//! Paying through make dev's provider, localstripe (not written here): `make pay` confirms a
//! PaymentIntent with a test card, and the provider itself signs and delivers the webhook, which
//! the store's signature check admits. A declined card places nothing.

use std::process::Command;

use serde_json::Value;

use crate::dev::{Dev, http, staff_token, start_dev, token};

/// `make -s pay ORDER=<order>` with `args`, against `dev`: its printed answer.
fn pay(dev: &Dev, order: &str, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_store-pay"))
        .arg(order)
        .args(args)
        .env("API_PORT", dev.api.rsplit(':').next().expect("port"))
        .env("STORE_DATA_FILE", dev.dir.join("store.db"))
        .env("PAYMENT_PORT", dev.payment_port.to_string())
        .output()
        .expect("store-pay runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "store-pay: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.trim()).expect("one JSON line")
}

#[test]
fn the_providers_own_webhook_places_a_paid_hold_and_a_declined_card_places_nothing() {
    let (dev, banner) = start_dev("pay", "127.0.0.1");
    assert!(
        banner.contains(&format!(
            "payments         localstripe http://127.0.0.1:{} (PAYMENT_PORT)",
            dev.payment_port
        )),
        "{banner}"
    );
    // c2's sample cart, checked out and paid with a card that succeeds.
    let (status, held) = http(
        &dev,
        "POST",
        "/customers/c2/checkout",
        &token(&dev, "c2"),
        "",
    );
    assert_eq!(status, 201, "{held}");
    let order = held["orderId"].as_str().expect("id");
    let paid = pay(&dev, order, &[]);
    assert_eq!(paid["paymentStatus"], "succeeded", "{paid}");
    assert_eq!(paid["orderStatus"], "PLACED", "{paid}");
    let (_, now) = http(
        &dev,
        "GET",
        &format!("/orders/{order}"),
        &staff_token(&dev),
        "",
    );
    assert_eq!(now["status"], "PLACED");

    // c1 holds one mug and pays with a card that is declined: the order waits for payment.
    let c1 = token(&dev, "c1");
    let (status, _) = http(
        &dev,
        "PUT",
        "/customers/c1/cart/items/sku-1",
        &c1,
        r#"{"quantity":1}"#,
    );
    assert_eq!(status, 200);
    let (status, held) = http(&dev, "POST", "/customers/c1/checkout", &c1, "");
    assert_eq!(status, 201, "{held}");
    let order = held["orderId"].as_str().expect("id");
    let declined = pay(&dev, order, &["--card", "declined"]);
    assert_eq!(
        declined["declined"], "Your card was declined.",
        "{declined}"
    );
    assert_eq!(declined["paymentStatus"], "requires_payment_method");
    // The provider reports the failure a second later; it places nothing.
    std::thread::sleep(std::time::Duration::from_millis(1_500));
    let (_, now) = http(
        &dev,
        "GET",
        &format!("/orders/{order}"),
        &staff_token(&dev),
        "",
    );
    assert_eq!(now["status"], "PENDING_PAYMENT");
}
