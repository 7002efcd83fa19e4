//! An order's lines, at the bottom of the domain: what was ordered (a SKU, how many, at what
//! price) and how many of a line a shipment, a cancellation, a return or a refund names. The
//! records (`fulfilment`, `cancellation`, `returns`, `refund`) and the order above them use
//! these; nothing here knows an order.

use serde::{Deserialize, Serialize};

use crate::AppError;
use crate::domain::ids::Sku;
use crate::domain::money::Money;
use crate::domain::product::OptionValues;

/// The most lines one order may have. An order is written in one DynamoDB transaction of at
/// most 100 actions: two per line (the product's stock, the line item) and three more
/// (listing, header, idempotency record); the DynamoDB layer asserts that this
/// still fits.
pub const MAX_LINES: usize = 48;

/// The most of one product one line may ask for.
pub const MAX_QUANTITY: u32 = 10_000;

/// One product line of an order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LineItem {
    /// Which product.
    pub sku: Sku,
    /// How many.
    pub quantity: u32,
    /// The price of one, as the catalog had it when the order was placed.
    pub price: Money,
    /// The product's title when the order was placed (absent: a line kept before orders kept
    /// what was bought).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The variant's options when the order was placed.
    #[serde(default, skip_serializing_if = "OptionValues::is_empty")]
    pub options: OptionValues,
    /// What the promotions took off the line, all its units (a checked-out order's; absent on
    /// an order priced before carts had promotions, or placed by staff).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discount: Option<Money>,
    /// The line's tax, on what is left after its discount (as `discount`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tax: Option<Money>,
}

impl LineItem {
    /// `quantity` of `sku` at `price`, as a line written before orders kept what was bought.
    pub fn untitled(sku: Sku, quantity: u32, price: Money) -> Self {
        Self {
            sku,
            quantity,
            price,
            title: None,
            options: OptionValues::default(),
            discount: None,
            tax: None,
        }
    }

    /// The line shown: `2 × Plain tee (M, Blue)`.
    pub fn text(&self) -> String {
        crate::domain::variant::line_text(
            self.quantity,
            &self.sku,
            self.title.as_deref(),
            &self.options,
        )
    }
}

/// How many of one of an order's lines: a refund's, a fulfilment's, a cancellation's or a
/// return's line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LineQuantity {
    /// Which product.
    pub sku: Sku,
    /// How many.
    pub quantity: u32,
}

/// `lines` as a client sent them, checked: 1 to `max` distinct SKUs, each with a quantity above
/// 0, in SKU order.
pub fn distinct_lines(
    mut lines: Vec<LineQuantity>,
    max: usize,
) -> Result<Vec<LineQuantity>, AppError> {
    lines.sort_by(|a, b| a.sku.cmp(&b.sku));
    let repeated = lines.windows(2).any(|pair| pair[0].sku == pair[1].sku);
    if lines.is_empty() || lines.len() > max || repeated || lines.iter().any(|l| l.quantity == 0) {
        return Err(AppError::invalid(format!(
            "lines must be 1-{max} distinct SKUs, each with a quantity above 0"
        )));
    }
    Ok(lines)
}
