//! The cart, checkout, the payment webhook and the holds' expiry, each with what the consumer
//! then does: the rows of the checkout path, and the figures of a million checkouts paid.

use functions::payment_webhook::Webhook;
use local_engine::capacity::Units;
use local_engine::runtime_api::Error;
use local_engine::testing::{Who, get, payments, webhook_secrets};

use super::{Bench, units_text};

/// What a checkout of `lines` lines costs, step by step, from an empty cart to PLACED.
#[derive(Clone, Copy, Default)]
pub(super) struct CheckoutPaid {
    pub(super) lines: usize,
    /// Every line put in the cart.
    pub(super) cart: Units,
    pub(super) checkout: Units,
    pub(super) webhook: Units,
    /// The consumer on the hold's record, then on the payment's.
    pub(super) consumer: Units,
}

impl CheckoutPaid {
    pub(super) fn total(&self) -> Units {
        self.cart
            .plus(self.checkout)
            .plus(self.webhook)
            .plus(self.consumer)
    }
}

/// A hold that ended unpaid: its checkout, the expiry run that ended it and the consumer.
#[derive(Clone, Copy, Default)]
pub(super) struct CheckoutExpired {
    pub(super) cart: Units,
    pub(super) checkout: Units,
    /// The run that ended it, its Query of GSI1 included.
    pub(super) expiry: Units,
    pub(super) consumer: Units,
    /// An expiry run that finds nothing to end: what the schedule costs every minute.
    pub(super) idle_run: Units,
}

impl Bench {
    /// c1's cart filled with `lines` products, one of each; the units of every line put in.
    pub(super) async fn fill_cart(&self, lines: usize) -> Result<(Units, Units), Error> {
        let (mut all, mut last) = (Units::default(), Units::default());
        for i in 0..lines {
            let req = payments::hold_line("c1", &format!("bench-{i:02}"), 1);
            (last, _) = self.units(functions::edit_cart::handle, req, 200).await?;
            all = all.plus(last);
        }
        Ok((all, last))
    }

    /// The provider's payment of the hold `order` (a checkout's answer) of `lines` lines; its
    /// units.
    async fn pay_hold(
        &mut self,
        webhook: &Webhook,
        lines: usize,
        order: &serde_json::Value,
    ) -> Result<Units, Error> {
        let amount = order["payment"]["amount"].as_i64().ok_or("no amount")?;
        let id = order["orderId"].as_str().ok_or("no orderId")?;
        let intent = order["payment"]["paymentIntentId"]
            .as_str()
            .ok_or("no PaymentIntent")?;
        let body = payments::succeeded(&format!("evt_bench_{lines}"), intent, amount, "usd", id);
        let (paid, answer) = self
            .units_on(
                webhook,
                functions::payment_webhook::handle,
                payments::webhook(&body),
                200,
            )
            .await?;
        if answer["outcome"] != "placed" {
            return Err(format!("the payment was not applied: {answer}").into());
        }
        self.row(
            &format!("POST webhook, payment of a {lines}-line hold"),
            paid,
            None,
            "a consistent read of the header; one transaction: header and listing PLACED (GSI1 moves), the payment's order kept under it, the event recorded",
        );
        Ok(paid)
    }

    /// Checkouts of 1 and 10 lines, each paid at once; GET cart on the full cart.
    pub(super) async fn checkout_paid(&mut self) -> Result<(), Error> {
        let webhook = Webhook {
            store: self.store.clone(),
            secrets: webhook_secrets(),
        };
        for lines in [1, 10] {
            let (cart, one_line) = self.fill_cart(lines).await?;
            if lines == 1 {
                self.row(
                    "PUT cart line (new)",
                    one_line,
                    None,
                    "the product, the cart's version and the cart read (consistent); one transaction: the line and the version",
                );
            } else {
                let req = get(
                    Who::Customer("c1"),
                    "GET /customers/{customerId}/cart",
                    "/customers/c1/cart",
                    "",
                );
                let (read, _) = self.units(functions::get_cart::handle, req, 200).await?;
                self.row("(9) GET cart, 10 lines", read, None, "one consistent Query");
            }
            let key = format!("bench-checkout-{lines}");
            let req = payments::checkout("c1", Some(&key));
            let service = functions::checkout::Checkout {
                store: self.store.clone(),
                provider: local_engine::testing::provider(),
            };
            let (checkout, order) = self
                .units_on(&service, functions::checkout::handle, req, 201)
                .await?;
            self.row(
                &format!(
                    "POST checkout, {lines} line{}",
                    if lines == 1 { "" } else { "s" }
                ),
                checkout,
                None,
                "a consistent Query of the cart, an eventually consistent one of the promotions; a consistent BatchGetItem of the customer's items, an eventually consistent one of the variants; one transaction: stock held, the order PENDING_PAYMENT, each cart line deleted (+2 W a line); then the PaymentIntent recorded on the header",
            );
            let (pending, _) = self.consumer_units().await?;
            let paid = self.pay_hold(&webhook, lines, &order).await?;
            let (placed, _) = self.consumer_units().await?;
            if lines == 10 {
                self.row(
                    "  consumer, the hold's event, then the payment's",
                    pending.plus(placed),
                    None,
                    "a hold adds nothing; the payment adds the order's share",
                );
            }
            self.figures.checkouts_paid.push(CheckoutPaid {
                lines,
                cart,
                checkout,
                webhook: paid,
                consumer: pending.plus(placed),
            });
        }
        Ok(())
    }

    /// A 1-line checkout of a SKU whose stock is split over 16 stock shards, by a process that
    /// has read the SKU before (its second checkout of it: the shards are read with the
    /// variant). Left PENDING_PAYMENT.
    pub(super) async fn checkout_sharded(&mut self) -> Result<(), Error> {
        let sku = shared::domain::ids::Sku::parse("bench-00")?;
        let count = shared::domain::stock_shards::ShardCount::new(16)?;
        self.store.set_stock_shards(&sku, count).await?;
        let service = functions::checkout::Checkout {
            store: self.store.clone(),
            provider: local_engine::testing::provider(),
        };
        let mut checkout = Units::default();
        for attempt in ["first", "second"] {
            self.fill_cart(1).await?;
            let key = format!("bench-checkout-sharded-{attempt}");
            let req = payments::checkout("c1", Some(&key));
            (checkout, _) = self
                .units_on(&service, functions::checkout::handle, req, 201)
                .await?;
            self.consumer_units().await?;
        }
        self.row(
            "POST checkout, 1 line of a SKU in 16 stock shards",
            checkout,
            None,
            "as a 1-line checkout, but the variants' eventually consistent read also reads the buyer's start shard (this process read the SKU before), and no other while it holds the line; the take writes that shard, and the variant's GSI3 entry only when it is the variant's own item",
        );
        Ok(())
    }

    /// An expiry run with nothing to end, then a 1-line hold that ends unpaid.
    pub(super) async fn checkout_expired(&mut self) -> Result<(), Error> {
        let budget = std::time::Duration::from_secs(30);
        self.meter.take();
        let expiry = functions::expire_holds::Expiry {
            store: self.store.clone(),
            provider: local_engine::testing::provider(),
        };
        let idle = functions::expire_holds::handle(&expiry, budget).await?;
        let idle_run = self.meter.take_units()?;
        if idle.holds.expired != 0 {
            return Err("an expiry run ended a hold nobody made".into());
        }
        self.row(
            "expiry run, no hold to end",
            idle_run,
            None,
            "one Query of GSI1 per status shard",
        );
        let (cart, _) = self.fill_cart(1).await?;
        let short = functions::checkout::Checkout {
            store: payments::briefly_held(&self.store),
            provider: local_engine::testing::provider(),
        };
        let req = payments::checkout("c1", Some("bench-checkout-expires"));
        let (checkout, _) = self
            .units_on(&short, functions::checkout::handle, req, 201)
            .await?;
        self.consumer_units().await?;
        // The hold lasts a second, its end rounded up to the whole second: the run that finds
        // it ended is the one measured.
        let started = std::time::Instant::now();
        let expiry = loop {
            tokio::time::sleep(std::time::Duration::from_millis(250)).await;
            self.meter.take();
            let run = functions::expire_holds::handle(&expiry, budget).await?;
            let units = self.meter.take_units()?;
            match run.holds.expired {
                1 => break units,
                0 if started.elapsed() < std::time::Duration::from_secs(10) => {}
                _ => return Err(format!("the expiry did not end the one hold: {run:?}").into()),
            }
        };
        self.row(
            "expiry run ending a 1-line hold",
            expiry,
            None,
            "the page, a consistent read of the order; one transaction: EXPIRED (GSI1 moves), stock back, place freed",
        );
        let (consumer, _) = self.consumer_units().await?;
        self.row(
            "  consumer, the expiry's event",
            consumer,
            None,
            "an expired hold was never counted",
        );
        self.figures.checkout_expired = CheckoutExpired {
            cart,
            checkout,
            expiry,
            consumer,
            idle_run,
        };
        Ok(())
    }
}

/// A million checkouts paid, beside a million orders POSTed; a million holds that expire; the
/// schedule's own cost.
pub(super) fn print_checkout_costs(
    paid: &[CheckoutPaid],
    posted: &[Units],
    expired: &CheckoutExpired,
) {
    use local_engine::capacity::US_EAST_1;
    println!();
    println!(
        "### A million checkouts paid, beside a million orders POSTed (on demand, {})",
        US_EAST_1.region
    );
    println!();
    println!(
        "A checkout paid: each line put in the cart, the checkout, the webhook's payment, the consumer on both records. An order POSTed: POST /customers/{{id}}/orders with an Idempotency-Key and the consumer on its record. Neither counts shipping or reads, which cost both the same."
    );
    println!();
    println!("| order size | checkout paid | per million | POST order | per million |");
    println!("|---|---|---|---|---|");
    for (c, post) in paid.iter().zip(posted) {
        let ours = c.total();
        println!(
            "| {} line{} | {} | ${:.2} | {} | ${:.2} |",
            c.lines,
            if c.lines == 1 { "" } else { "s" },
            units_text(ours),
            US_EAST_1.cost(ours.times(1e6)),
            units_text(*post),
            US_EAST_1.cost(post.times(1e6)),
        );
    }
    let unpaid = expired
        .cart
        .plus(expired.checkout)
        .plus(expired.expiry)
        .plus(expired.consumer);
    println!();
    println!(
        "A 1-line hold that expires unpaid (cart, checkout, its end by the expiry, the consumer): {} each, ${:.2} a million. The schedule itself, every minute with nothing to end: {} a run, ${:.4} a month (43,200 runs).",
        units_text(unpaid),
        US_EAST_1.cost(unpaid.times(1e6)),
        units_text(expired.idle_run),
        US_EAST_1.cost(expired.idle_run.times(43_200.0)),
    );
}
