//! An order's first read: the customer's own items, the variants and their stock shards, in
//! one BatchGetItem (two for a checkout: [`InputsRead`]).

use std::collections::HashMap;
use std::sync::atomic::Ordering;

use crate::domain::ids::{CustomerId, IdempotencyKey, Sku};
use crate::domain::order::RequestedLine;
use crate::domain::stock_shards::buyer_seed;
use crate::dynamo::codec::Item;
use crate::dynamo::entities::{customer, idempotency, open_order_count, variant};
use crate::dynamo::keys::{PK, SK, STOCK_PREFIX};
use crate::dynamo::products::{MAX_BATCH_GET, ShardsRead, hinted_keys};
use crate::dynamo::store::epoch_seconds;
use crate::{AppError, Store};

use super::{InputsRead, OrderInputs};

/// `item` has the keys of `key`.
fn has_key(item: &Item, key: &Item) -> bool {
    item.get(PK) == key.get(PK) && item.get(SK) == key.get(SK)
}

impl Store {
    /// The customer's profile, the products `requested` names, (with a key) the idempotency
    /// record and (with `holdings`, for a checkout) the customer's count of open orders, as
    /// `read` says ([`InputsRead`]), for the order's `attempt` (0: its first; a sharded SKU's
    /// buyer starts on another shard each time: [`buyer_seed`]).
    pub async fn read_order_inputs(
        &self,
        customer: &CustomerId,
        idempotency_key: Option<&IdempotencyKey>,
        requested: &[RequestedLine],
        (read, holdings, attempt): (InputsRead, bool, u32),
    ) -> Result<OrderInputs, AppError> {
        let profile_key = customer::key(customer);
        let record_key = idempotency_key.map(|key| idempotency::key(customer, key));
        let count_key = holdings.then(|| open_order_count::key(customer));
        let mut keys = vec![profile_key.clone()];
        keys.extend(record_key.clone());
        keys.extend(count_key.clone());
        // The stock shards of the SKUs this process last saw sharded, beside their variants:
        // the customer's start shard of each (the takes start there), or all of them.
        let mut wanted: HashMap<Sku, u64> = HashMap::new();
        for line in requested {
            *wanted.entry(line.sku.clone()).or_default() += u64::from(line.quantity);
        }
        let mut inputs = OrderInputs::default();
        // A sharded SKU's variant this process read a moment ago, for an eventual read (every
        // buyer of a flash sale would read its one item: [`crate::dynamo::recent`]).
        let mut skus: Vec<Sku> = Vec::with_capacity(requested.len());
        for sku in requested.iter().map(|line| &line.sku) {
            match self
                .recent
                .variant(sku)
                .filter(|_| read != InputsRead::Consistent)
            {
                Some(copy) => {
                    inputs.products.insert(sku.clone(), copy);
                }
                None => skus.push(sku.clone()),
            }
        }
        let seed = buyer_seed(customer, attempt);
        let room = MAX_BATCH_GET - keys.len() - skus.len();
        let shard_keys = hinted_keys(&self.shard_counts, &wanted, &seed, room);
        let mut shards = ShardsRead::asked(&shard_keys, wanted, &seed);
        let variant_keys: Vec<Item> = skus.iter().map(variant::key).chain(shard_keys).collect();
        let items = self.read_inputs(keys, variant_keys, read).await?;
        for item in items {
            if item
                .get(PK)
                .and_then(|pk| pk.as_s().ok())
                .is_some_and(|pk| pk.starts_with(STOCK_PREFIX))
            {
                shards.found(item)?;
            } else if has_key(&item, &profile_key) {
                inputs.customer_named = item.contains_key(customer::NAME.name);
                inputs.address = customer::ADDRESS.get(&item);
            } else if count_key.as_ref().is_some_and(|key| has_key(&item, key)) {
                inputs.counts_held = open_order_count::counts_held(&item);
            } else if record_key.as_ref().is_some_and(|key| has_key(&item, key)) {
                let (record, expires_at) = idempotency::from_item(item)?;
                // TTL deletes expired records only eventually.
                inputs.replay = (expires_at > epoch_seconds()).then_some(record);
            } else {
                let variant = variant::from_item(item)?;
                self.recent.read_variant(&variant);
                inputs.products.insert(variant.sku.clone(), variant);
            }
        }
        let consistent = read == InputsRead::Consistent;
        let variants = inputs.products.values_mut();
        inputs.levels = (self.complete_stock_shards(variants, consistent, shards)).await?;
        Ok(inputs)
    }

    /// The first read's two sets of keys, read as `read` says: the customer's own `keys` and
    /// the `variant_keys` in one BatchGetItem, or in two (for [`InputsRead::VariantsEventual`]),
    /// one after the other on the process's first read, at once after that.
    async fn read_inputs(
        &self,
        mut keys: Vec<Item>,
        variant_keys: Vec<Item>,
        read: InputsRead,
    ) -> Result<Vec<Item>, AppError> {
        let items = match read {
            InputsRead::Consistent | InputsRead::Eventual => {
                keys.extend(variant_keys);
                self.batch_get(keys, read == InputsRead::Consistent).await?
            }
            InputsRead::VariantsEventual if variant_keys.is_empty() => {
                self.batch_get(keys, true).await?
            }
            // A process that has read before has its connection open: both reads at once, one
            // round trip. Its first read goes one after the other (see [`InputsRead`]).
            InputsRead::VariantsEventual if self.has_read.load(Ordering::Relaxed) => {
                let (mut items, variants) = tokio::try_join!(
                    self.batch_get(keys, true),
                    self.batch_get(variant_keys, false)
                )?;
                items.extend(variants);
                items
            }
            InputsRead::VariantsEventual => {
                let mut items = self.batch_get(keys, true).await?;
                items.extend(self.batch_get(variant_keys, false).await?);
                items
            }
        };
        self.has_read.store(true, Ordering::Relaxed);
        Ok(items)
    }
}
