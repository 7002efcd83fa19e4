//! An order's first read: the customer's own items, the variants and their stock shards, in
//! one BatchGetItem (for a checkout, the cart beside the customer's own items, then the
//! variants: [`Store::read_checkout_inputs`]).

use std::collections::HashMap;
use std::sync::atomic::Ordering;

use crate::domain::ids::{CustomerId, IdempotencyKey, Sku};
use crate::domain::order::RequestedLine;
use crate::domain::stock_shards::buyer_seed;
use crate::dynamo::cart::{StoredCartLine, requested_lines};
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

/// The most keys [`OwnKeys`] has.
const OWN_KEYS: usize = 3;

/// The keys of the customer's own items an order reads: the profile, (with an
/// Idempotency-Key) its record and (for a checkout, which holds units) the count of open
/// orders.
struct OwnKeys {
    profile: Item,
    record: Option<Item>,
    count: Option<Item>,
}

impl OwnKeys {
    fn of(customer: &CustomerId, key: Option<&IdempotencyKey>, holdings: bool) -> Self {
        Self {
            profile: customer::key(customer),
            record: key.map(|key| idempotency::key(customer, key)),
            count: holdings.then(|| open_order_count::key(customer)),
        }
    }

    fn keys(&self) -> Vec<Item> {
        let mut keys = vec![self.profile.clone()];
        keys.extend(self.record.clone());
        keys.extend(self.count.clone());
        keys
    }

    /// `item` taken into `inputs` if it is one of these (true), else left (false).
    fn took(&self, item: &Item, inputs: &mut OrderInputs) -> Result<bool, AppError> {
        if has_key(item, &self.profile) {
            inputs.customer_named = item.contains_key(customer::NAME.name);
            inputs.address = customer::ADDRESS.get(item);
        } else if self.count.as_ref().is_some_and(|key| has_key(item, key)) {
            inputs.counts_held = open_order_count::counts_held(item);
        } else if self.record.as_ref().is_some_and(|key| has_key(item, key)) {
            let (record, expires_at) = idempotency::from_item(item.clone())?;
            // TTL deletes expired records only eventually.
            inputs.replay = (expires_at > epoch_seconds()).then_some(record);
        } else {
            return Ok(false);
        }
        Ok(true)
    }
}

/// The variants an order still has to read, and the stock shards asked beside them.
struct VariantsPlan {
    keys: Vec<Item>,
    shards: ShardsRead,
}

/// The stock shards a checkout read ahead, beside its cart ([`Store::ahead_keys`]): the keys
/// asked and the items found.
#[derive(Default)]
struct Ahead {
    keys: Vec<Item>,
    found: Vec<Item>,
}

/// Whether `item` (or a key) is a stock shard's.
fn is_shard(item: &Item) -> bool {
    (item.get(PK).and_then(|pk| pk.as_s().ok())).is_some_and(|pk| pk.starts_with(STOCK_PREFIX))
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
        let own = OwnKeys::of(customer, idempotency_key, holdings);
        let mut inputs = OrderInputs::default();
        let (ahead, read_as) = (Ahead::default(), (read, attempt));
        let plan = self.plan_variants(customer, requested, read_as, ahead, &mut inputs)?;
        let items = self.read_inputs(own.keys(), plan.keys, read).await?;
        self.inputs_found(&own, items, plan.shards, read, inputs)
            .await
    }

    /// A checkout's first read, for its `attempt`: the customer's live cart (ONE Query) and
    /// their own items (strongly consistent), at once on a process that has read before (one
    /// after the other on its first: [`InputsRead`]); then the variants the cart names, as
    /// `read` says, unless this process read them a moment ago ([`crate::dynamo::recent`]). So
    /// a buyer of a flash sale's SKU is read in one round trip of two requests, and a copy that
    /// ended is read again in the second ([`Store::ahead_keys`]). Once a buyer of this process
    /// asked for a SKU it knows is sold out, the next reads the cart alone first
    /// ([`Store::cart_first`]): a buyer of a sold-out SKU is refused from that one Query.
    pub async fn read_checkout_inputs(
        &self,
        customer: &CustomerId,
        idempotency_key: Option<&IdempotencyKey>,
        (read, attempt): (InputsRead, u32),
    ) -> Result<(Vec<StoredCartLine>, Vec<RequestedLine>, OrderInputs), AppError> {
        let own = OwnKeys::of(customer, idempotency_key, true);
        let warm = self.has_read.load(Ordering::Relaxed);
        let (cart, mut items, ahead) = if warm && self.reads_cart_first(read) {
            self.cart_first(customer, &own, (read, attempt)).await?
        } else if warm {
            let own_items = self.own_items(customer, &own, (read, attempt));
            let (cart, (items, ahead)) = tokio::try_join!(self.live_cart(customer), own_items)?;
            (cart, items, ahead)
        } else {
            let cart = self.live_cart(customer).await?;
            let (items, ahead) = self.own_items(customer, &own, (read, attempt)).await?;
            (cart, items, ahead)
        };
        self.has_read.store(true, Ordering::Relaxed);
        let requested = requested_lines(&cart)?;
        let mut inputs = OrderInputs::default();
        let plan = self.plan_variants(customer, &requested, (read, attempt), ahead, &mut inputs)?;
        if !plan.keys.is_empty() {
            let consistent = read == InputsRead::Consistent;
            items.extend(self.batch_get(plan.keys, consistent).await?);
        }
        let inputs = (self.inputs_found(&own, items, plan.shards, read, inputs)).await?;
        Ok((cart, requested, inputs))
    }

    /// Whether a checkout read as `read` says reads its cart first, alone: on a read that may
    /// take copies, after a buyer of this process asked for a SKU its copy says is sold out,
    /// unless a copy ended (its read goes with the customer's items, at once with the cart).
    fn reads_cart_first(&self, read: InputsRead) -> bool {
        read != InputsRead::Consistent
            && self.cart_first.load(Ordering::Relaxed)
            && !self.recent.any_ended()
    }

    /// The cart read first, alone, with the mark on its version that the customer is one
    /// ([`Store::live_cart_marked`]). A cart asking for a SKU this process's copy says is sold
    /// out, of a customer so marked, is refused 409 from it, with no other read: nothing the
    /// customer's own items say comes before that refusal (the profile exists; a checkout
    /// under the same Idempotency-Key that held its order emptied the cart of what it bought).
    /// Otherwise the customer's own items are read after it, and the next checkout reads both
    /// at once again.
    async fn cart_first(
        &self,
        customer: &CustomerId,
        own: &OwnKeys,
        (read, attempt): (InputsRead, u32),
    ) -> Result<(Vec<StoredCartLine>, Vec<Item>, Ahead), AppError> {
        let (cart, profiled) = self.live_cart_marked(customer).await?;
        let sold_out: Vec<Sku> = (cart.iter().map(|stored| &stored.line.sku))
            .filter(|sku| self.recent.sold_out(sku))
            .cloned()
            .collect();
        if profiled && !sold_out.is_empty() {
            return Err(AppError::OutOfStock(sold_out));
        }
        self.cart_first.store(false, Ordering::Relaxed);
        let (items, ahead) = self.own_items(customer, own, (read, attempt)).await?;
        Ok((cart, items, ahead))
    }

    /// The customer's `own` items, and what this process reads ahead ([`Store::ahead_keys`]),
    /// in one strongly consistent BatchGetItem: the items other than what was read ahead, and
    /// the read-ahead's shards.
    async fn own_items(
        &self,
        customer: &CustomerId,
        own: &OwnKeys,
        read_as: (InputsRead, u32),
    ) -> Result<(Vec<Item>, Ahead), AppError> {
        let (variant_keys, shard_keys) = self.ahead_keys(customer, read_as);
        let mut keys = own.keys();
        keys.extend(variant_keys.iter().chain(&shard_keys).cloned());
        let items = self.batch_get(keys, true).await?;
        self.read_ahead(items, &variant_keys, shard_keys)
    }

    /// What a checkout reads ahead, in its BatchGetItem of the customer's own items (so,
    /// strongly consistent: once a second a process, not once a buyer): the variants whose
    /// copies ended since a buyer of this process was served from them
    /// ([`crate::dynamo::recent::Recent::take_ended`]), and the shards the next read of each
    /// would ask for. Nothing on a read that must be consistent (it takes no copy).
    fn ahead_keys(
        &self,
        customer: &CustomerId,
        (read, attempt): (InputsRead, u32),
    ) -> (Vec<Item>, Vec<Item>) {
        if read == InputsRead::Consistent {
            return (Vec::new(), Vec::new());
        }
        // At most a quarter of a BatchGetItem's keys: the rest for their shards.
        let skus = self.recent.take_ended(MAX_BATCH_GET / 4);
        if skus.is_empty() {
            return (Vec::new(), Vec::new());
        }
        let wanted: HashMap<Sku, u64> = skus.iter().map(|sku| (sku.clone(), 1)).collect();
        let seed = buyer_seed(customer, attempt);
        let room = MAX_BATCH_GET - OWN_KEYS - skus.len();
        let shard_keys = hinted_keys(&self.shard_counts, &wanted, &seed, room);
        (skus.iter().map(variant::key).collect(), shard_keys)
    }

    /// `items` read with [`Store::ahead_keys`]' `variant_keys` and `shard_keys`: the variants
    /// taken as copies, the shards found given back as [`Ahead`], the rest returned.
    fn read_ahead(
        &self,
        items: Vec<Item>,
        variant_keys: &[Item],
        shard_keys: Vec<Item>,
    ) -> Result<(Vec<Item>, Ahead), AppError> {
        let mut ahead = Ahead {
            keys: shard_keys,
            found: Vec::new(),
        };
        let mut rest = Vec::with_capacity(items.len());
        for item in items {
            if is_shard(&item) {
                ahead.found.push(item);
            } else if variant_keys.iter().any(|key| has_key(&item, key)) {
                self.recent.read_variant(&variant::from_item(item)?);
            } else {
                rest.push(item);
            }
        }
        Ok((rest, ahead))
    }

    /// What of `requested` an order still reads: the variants this process has no copy of
    /// (the copies go into `inputs`), and the stock shards of the SKUs it last saw sharded,
    /// beside their variants: the customer's start shard of each (the takes start there), or
    /// all of them; none of a SKU this process found sold out a moment ago.
    fn plan_variants(
        &self,
        customer: &CustomerId,
        requested: &[RequestedLine],
        (read, attempt): (InputsRead, u32),
        ahead: Ahead,
        inputs: &mut OrderInputs,
    ) -> Result<VariantsPlan, AppError> {
        let mut wanted: HashMap<Sku, u64> = HashMap::new();
        for line in requested {
            *wanted.entry(line.sku.clone()).or_default() += u64::from(line.quantity);
        }
        // A sharded SKU's variant this process read a moment ago, for an eventual read (every
        // buyer of a flash sale would read its one item: [`crate::dynamo::recent`]).
        let copies = read != InputsRead::Consistent;
        let mut skus: Vec<Sku> = Vec::with_capacity(requested.len());
        let mut sold_out = Vec::new();
        for sku in requested.iter().map(|line| &line.sku) {
            match self.recent.variant(sku).filter(|_| copies) {
                Some(copy) => {
                    if self.recent.sold_out(sku) {
                        sold_out.push((sku.clone(), copy.stock_shards));
                        self.cart_first.store(true, Ordering::Relaxed);
                    }
                    inputs.products.insert(sku.clone(), copy);
                }
                None => skus.push(sku.clone()),
            }
        }
        let seed = buyer_seed(customer, attempt);
        // Room beside the customer's own items, in an order's one BatchGetItem.
        let room = MAX_BATCH_GET - OWN_KEYS - skus.len();
        let hinted: HashMap<Sku, u64> = (wanted.iter())
            .filter(|(sku, _)| !sold_out.iter().any(|(out, _)| out == *sku))
            .map(|(sku, units)| (sku.clone(), *units))
            .collect();
        let shard_keys: Vec<Item> = hinted_keys(&self.shard_counts, &hinted, &seed, room)
            .into_iter()
            .filter(|key| !ahead.keys.contains(key))
            .collect();
        let asked: Vec<Item> = shard_keys.iter().chain(&ahead.keys).cloned().collect();
        let mut shards = ShardsRead::asked(&asked, wanted, &seed);
        for item in ahead.found {
            shards.found(item)?;
        }
        for (sku, count) in sold_out {
            shards.known_empty(&sku, count);
        }
        let keys = skus.iter().map(variant::key).chain(shard_keys).collect();
        Ok(VariantsPlan { keys, shards })
    }

    /// `items` read for `own` and a plan, taken into `inputs`; the shards the plan did not
    /// ask for read after, as `read` says.
    async fn inputs_found(
        &self,
        own: &OwnKeys,
        items: Vec<Item>,
        mut shards: ShardsRead,
        read: InputsRead,
        mut inputs: OrderInputs,
    ) -> Result<OrderInputs, AppError> {
        for item in items {
            if is_shard(&item) {
                shards.found(item)?;
            } else if !own.took(&item, &mut inputs)? {
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
