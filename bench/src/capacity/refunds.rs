//! Money back: a staff refund by lines (with restock) and by an amount, a paid order's
//! cancellation with its refund, the ledger, and the refunds payer's runs: the rows of each
//! refund path.

use functions::payment_webhook::Webhook;
use local_engine::capacity::Units;
use local_engine::provider::{LOCAL_API_KEY, form_post};
use local_engine::runtime_api::Error;
use local_engine::testing::{Who, get, payments, send_json, webhook_secrets};

use super::Bench;

impl Bench {
    /// A 2-line hold checked out by c1 and paid at the provider, then placed by its webhook:
    /// the order's ID.
    pub(super) async fn paid_order(&mut self, key: &str) -> Result<String, Error> {
        for i in 0..2 {
            let req = payments::hold_line("c1", &format!("bench-{i:02}"), 2);
            self.units(functions::edit_cart::handle, req, 200).await?;
        }
        let service = functions::checkout::Checkout {
            store: self.store.clone(),
            provider: local_engine::testing::provider(),
        };
        let (_, order) = self
            .units_on(
                &service,
                functions::checkout::handle,
                payments::checkout("c1", Some(key)),
                201,
            )
            .await?;
        let intent = order["payment"]["paymentIntentId"]
            .as_str()
            .ok_or("no PaymentIntent")?;
        let base = local_engine::testing::provider().base().to_owned();
        let path = format!("/v1/payment_intents/{intent}");
        let card = [("payment_method", "pm_card_visa")];
        form_post(&base, &path, Some(LOCAL_API_KEY), &card)?;
        let (status, body) =
            form_post(&base, &format!("{path}/confirm"), Some(LOCAL_API_KEY), &[])?;
        if status != 200 {
            return Err(format!("confirm {intent}: {status} {body}").into());
        }
        let webhook = Webhook {
            store: self.store.clone(),
            secrets: webhook_secrets(),
        };
        let amount = order["payment"]["amount"].as_i64().ok_or("no amount")?;
        let id = order["orderId"].as_str().ok_or("no orderId")?;
        let body = payments::succeeded(&format!("evt_{key}"), intent, amount, "usd", id);
        let (_, answer) = self
            .units_on(
                &webhook,
                functions::payment_webhook::handle,
                payments::webhook(&body),
                200,
            )
            .await?;
        if answer["outcome"] != "placed" {
            return Err(format!("the payment was not applied: {answer}").into());
        }
        self.consumer_units().await?;
        Ok(order["orderId"].as_str().ok_or("no orderId")?.to_owned())
    }

    /// Staff's refund of `order` with `body`, under `key`; its units.
    async fn refund(&self, order: &str, key: &str, body: &str) -> Result<Units, Error> {
        let req = send_json(
            Who::Staff,
            "POST /orders/{orderId}/refunds",
            &format!("/orders/{order}/refunds"),
            &[("idempotency-key", key)],
            body,
        );
        Ok(self
            .units(functions::refund_order::handle, req, 202)
            .await?
            .0)
    }

    /// One run of the refunds payer; its units, and how many refunds it sent.
    pub(super) async fn payer_run(&mut self) -> Result<(Units, usize), Error> {
        let payer = functions::pay_refunds::Payer {
            store: self.store.clone(),
            provider: local_engine::testing::provider(),
        };
        self.meter.take();
        let run =
            functions::pay_refunds::handle(&payer, std::time::Duration::from_secs(30)).await?;
        if run.failed > 0 || !run.unsettled.is_empty() {
            return Err(format!("the payer did not settle every refund: {run:?}").into());
        }
        Ok((self.meter.take_units()?, run.sent))
    }

    /// The refund paths: by lines with restock, by an amount, the payer, a paid order
    /// cancelled, the ledger.
    pub(super) async fn refunds(&mut self) -> Result<(), Error> {
        let (idle, sent) = self.payer_run().await?;
        if sent > 0 {
            return Err(
                format!("the idle payer run sent {sent} refunds: a row before left one").into(),
            );
        }
        self.row(
            "refunds payer run, nothing to send",
            idle,
            None,
            "one Query of GSI1 per refund status it reads (REQUESTED, PENDING)",
        );
        let order = self.paid_order("bench-refund-1").await?;
        let lines = self
            .refund(
                &order,
                "bench-refund-lines",
                r#"{"lines":[{"sku":"bench-00","quantity":1}],"reason":"damaged","restock":true}"#,
            )
            .await?;
        self.row(
            "POST refund, 1 line with restock",
            lines,
            None,
            "one Query of the order; one transaction: the balance drawn on, the line counted, its stock back, the refund put (GSI1 entry)",
        );
        let amount = self
            .refund(
                &order,
                "bench-refund-amount",
                r#"{"amount":100,"reason":"goodwill"}"#,
            )
            .await?;
        self.row(
            "POST refund, an amount",
            amount,
            None,
            "one Query of the order; one transaction: the balance drawn on, the refund put (GSI1 entry)",
        );
        let (run, sent) = self.payer_run().await?;
        if sent != 2 {
            return Err(format!("the payer sent {sent} refunds, not 2").into());
        }
        self.row(
            "refunds payer run, sending 2 refunds",
            run,
            None,
            "the two Queries; per refund a claim and its outcome, each one UpdateItem (GSI1 moves twice)",
        );
        let req = get(
            Who::Staff,
            "GET /orders/{orderId}/payments",
            &format!("/orders/{order}/payments"),
            "",
        );
        let (ledger, _) = self.units(functions::get_order::handle, req, 200).await?;
        self.row(
            "GET ledger (2 lines, 2 refunds)",
            ledger,
            None,
            "the order's one consistent Query: header, lines, refunds",
        );
        let cancelled = self.paid_order("bench-refund-2").await?;
        let cancel = self.patch(&cancelled, "CANCELLED").await?;
        self.row(
            "PATCH status (PLACED → CANCELLED), paid, 2 lines",
            cancel,
            None,
            "the cancellation's transaction, with the balance drawn on, each line counted and the refund put",
        );
        self.consumer_units().await?;
        Ok(())
    }
}
