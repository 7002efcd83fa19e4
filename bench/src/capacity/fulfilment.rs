//! Shipping in parts: a fulfilment of some lines, one of the rest, a tracking correction and
//! the deliveries; a return of a delivered unit asked for, approved and received; unshipped
//! lines cancelled, of an unpaid and of a paid order; each a row (`docs/fulfilment.md`).

use local_engine::runtime_api::Error;
use local_engine::testing::{Who, send_json, ship, update_fulfilment};

use super::Bench;

impl Bench {
    /// A 2-line order shipped in two fulfilments, its tracking corrected, both delivered.
    pub(super) async fn fulfilments(&mut self) -> Result<(), Error> {
        let (_, order) = self.place(2, None).await?;
        let order = order["orderId"].as_str().ok_or("no orderId")?.to_owned();
        self.consumer_units().await?;
        let tracking = r#""carrier":"DHL","trackingNumber":"JD0001""#;
        let (first, shipped) = self
            .units(
                functions::ship_order::handle,
                ship(Who::Staff, &order, &[("bench-00", 1)], tracking),
                201,
            )
            .await?;
        self.row(
            "ship part of an order (POST fulfilments, 1 of 2 lines)",
            first,
            None,
            "consistent read; fulfilment, header's lines version and status, listing: one transaction",
        );
        let (rest, second) = self
            .units(
                functions::ship_order::handle,
                ship(Who::Staff, &order, &[("bench-01", 1)], tracking),
                201,
            )
            .await?;
        self.row(
            "ship the rest (PARTIALLY_SHIPPED → SHIPPED)",
            rest,
            None,
            "as above, and the customer's place under the cap released",
        );
        let id = |body: &serde_json::Value| -> Result<String, Error> {
            Ok(body["fulfilmentId"]
                .as_str()
                .ok_or("no fulfilmentId")?
                .to_owned())
        };
        let (first_id, second_id) = (id(&shipped)?, id(&second)?);
        self.corrected_and_delivered(&order, &first_id, &second_id)
            .await?;
        self.consumer_units().await?;
        self.returns(&order).await?;
        self.cancellations().await
    }

    /// The first of `order`'s two fulfilments' tracking corrected, then both delivered.
    async fn corrected_and_delivered(
        &mut self,
        order: &str,
        first_id: &str,
        second_id: &str,
    ) -> Result<(), Error> {
        let (corrected, _) = self
            .units(
                functions::update_fulfilment::handle,
                update_fulfilment(
                    Who::Staff,
                    order,
                    first_id,
                    r#"{"trackingNumber":"JD0002"}"#,
                ),
                200,
            )
            .await?;
        self.row(
            "correct a fulfilment's tracking",
            corrected,
            None,
            "consistent read; the fulfilment alone, on its event counter",
        );
        let delivered = r#"{"status":"DELIVERED"}"#;
        let (one, _) = self
            .units(
                functions::update_fulfilment::handle,
                update_fulfilment(Who::Staff, order, first_id, delivered),
                200,
            )
            .await?;
        self.row(
            "deliver a fulfilment (one of two)",
            one,
            None,
            "the fulfilment and the header's lines version: one transaction",
        );
        let (last, _) = self
            .units(
                functions::update_fulfilment::handle,
                update_fulfilment(Who::Staff, order, second_id, delivered),
                200,
            )
            .await?;
        self.row(
            "deliver the last fulfilment (SHIPPED → DELIVERED)",
            last,
            None,
            "as above, with the header's and the listing's status",
        );
        Ok(())
    }

    /// A return of one delivered unit of `order` (unpaid: nothing to refund): asked for,
    /// approved, received back into stock.
    async fn returns(&mut self, order: &str) -> Result<(), Error> {
        let (asked, body) = self
            .units(
                functions::request_return::handle,
                send_json(
                    Who::Staff,
                    "POST /orders/{orderId}/returns",
                    &format!("/orders/{order}/returns"),
                    &[("idempotency-key", &format!("return-{order}"))],
                    r#"{"lines":[{"sku":"bench-00","quantity":1}],"reason":"too small"}"#,
                ),
                201,
            )
            .await?;
        self.row(
            "ask to return a delivered unit (POST returns)",
            asked,
            None,
            "consistent read; the return and the header's lines version: one transaction",
        );
        let id = body["returnId"].as_str().ok_or("no returnId")?.to_owned();
        let (approved, _) = self
            .units(
                functions::update_return::handle,
                send_json(
                    Who::Staff,
                    "PATCH /orders/{orderId}/returns/{returnId}",
                    &format!("/orders/{order}/returns/{id}"),
                    &[],
                    r#"{"status":"APPROVED"}"#,
                ),
                200,
            )
            .await?;
        self.row(
            "approve a return",
            approved,
            None,
            "consistent read; the return alone, on its event counter (its GSI1 listing moves)",
        );
        let (received, _) = self
            .units(
                functions::receive_return::handle,
                send_json(
                    Who::Staff,
                    "POST /orders/{orderId}/returns/{returnId}/receipt",
                    &format!("/orders/{order}/returns/{id}/receipt"),
                    &[],
                    r#"{"lines":[{"sku":"bench-00","received":1}],"refund":true}"#,
                ),
                201,
            )
            .await?;
        self.row(
            "receive a return (unpaid order: back into stock, nothing to refund)",
            received,
            None,
            "consistent read; return, line, stock, header's and listing's withdrawn: one transaction",
        );
        self.consumer_units().await?;
        Ok(())
    }

    /// One unshipped line cancelled of a 2-line order placed by staff (unpaid), then of a paid
    /// one (its refund requested).
    async fn cancellations(&mut self) -> Result<(), Error> {
        let (_, order) = self.place(2, None).await?;
        let order = order["orderId"].as_str().ok_or("no orderId")?.to_owned();
        self.consumer_units().await?;
        let (unpaid, _) = self
            .units(
                functions::cancel_lines::handle,
                cancel(&order, "bench-c1"),
                201,
            )
            .await?;
        self.row(
            "cancel an unshipped line (unpaid order)",
            unpaid,
            None,
            "consistent read; cancellation, line, stock, header, listing: one transaction",
        );
        self.consumer_units().await?;
        let paid = self.paid_order("bench-cancel").await?;
        let (refunded, _) = self
            .units(
                functions::cancel_lines::handle,
                cancel(&paid, "bench-c2"),
                201,
            )
            .await?;
        self.row(
            "cancel a paid order's unshipped line",
            refunded,
            None,
            "as above, with its refund recorded and the balance drawn on",
        );
        self.consumer_units().await?;
        // Its refund paid, so the payer's idle row (`refunds`) finds nothing to send.
        self.payer_run().await?;
        Ok(())
    }
}

/// Staff's cancellation of one unit of `bench-00` of `order`, under `key`.
fn cancel(order: &str, key: &str) -> lambda_http::Request {
    send_json(
        Who::Staff,
        "POST /orders/{orderId}/cancellations",
        &format!("/orders/{order}/cancellations"),
        &[("idempotency-key", key)],
        r#"{"lines":[{"sku":"bench-00","quantity":1}],"reason":"broken in the warehouse"}"#,
    )
}
