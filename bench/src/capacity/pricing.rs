//! What pricing a cart costs: staff's way to ship, tax rate and promotion, a quote of a
//! 10-line cart with a code, a way to ship and tax, and its checkout counting the code's uses.

use local_engine::runtime_api::Error;
use local_engine::testing::{Who, catalog, get, payments, send_json};

use super::Bench;

/// Where the quote and the checkout ship: California, taxed 7.25 %.
const TO_CALIFORNIA: &str = r#""shippingAddress": {"name": "Ana Torres", "line1": "1 Main St", "city": "Fresno", "postalCode": "93721", "country": "US", "region": "CA"}"#;

impl Bench {
    /// Staff's writes of what a cart is priced by, then a quote and a checkout priced by them.
    pub(super) async fn pricing(&mut self) -> Result<(), Error> {
        let option = send_json(
            Who::Staff,
            "PUT /shipping-options/{optionId}",
            "/shipping-options/bench-standard",
            &[],
            r#"{"name": "Standard", "countries": ["US"], "rate": {"flat": "4.00"}}"#,
        );
        let (units, _) = self
            .units(functions::put_shipping_option::handle, option, 201)
            .await?;
        self.row(
            "PUT shipping option (new)",
            units,
            None,
            "the options read (one consistent Query, for the cap of 50), then the option put",
        );
        let tax = send_json(
            Who::Staff,
            "PUT /tax-rates/{country}",
            "/tax-rates/US",
            &[],
            r#"{"rate": "0", "regions": {"CA": "0.0725"}}"#,
        );
        let (units, _) = self
            .units(functions::put_tax_rate::handle, tax, 201)
            .await?;
        self.row("PUT tax rate (new)", units, None, "one PutItem");
        let promotion = catalog::put_promotion(
            "bench-ten",
            r#"{"code": "BENCH10", "type": "percentage", "value": "10", "usageLimit": 1000, "perCustomerLimit": 100}"#,
        );
        let (units, _) = self
            .units(functions::put_promotion::handle, promotion, 201)
            .await?;
        self.row(
            "PUT promotion (new, a code)",
            units,
            None,
            "the promotions read (one consistent Query); one transaction: the promotion, its code's claim",
        );
        self.fill_cart(10).await?;
        let quote = get(
            Who::Customer("c1"),
            "GET /customers/{customerId}/cart/quote",
            "/customers/c1/cart/quote",
            "shippingOptionId=bench-standard&country=US&region=CA&code=BENCH10",
        );
        let (units, _) = self
            .units(functions::quote_cart::handle, quote, 200)
            .await?;
        self.row(
            "GET cart quote, 10 lines, a code, a way to ship, tax",
            units,
            None,
            "the cart and the promotions (two Queries); the variants, the way to ship and the tax (one BatchGetItem); the code's two counts (one BatchGetItem)",
        );
        let body = format!(
            r#"{{{TO_CALIFORNIA}, "shippingOptionId": "bench-standard", "codes": ["BENCH10"]}}"#
        );
        let req = payments::checkout_with_body("c1", Some("bench-priced"), &body);
        let service = functions::checkout::Checkout {
            store: self.store.clone(),
            provider: local_engine::testing::provider(),
        };
        let (units, _) = self
            .units_on(&service, functions::checkout::handle, req, 201)
            .await?;
        self.row(
            "POST checkout, 10 lines, a code, a way to ship, tax",
            units,
            None,
            "as a 10-line checkout, and the quote's reads (consistent); the code's two counts in the transaction (+4 W)",
        );
        Ok(())
    }
}
