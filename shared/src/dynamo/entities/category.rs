//! A category, `CATEGORIES` / `CATEGORY#<categoryId>` (access pattern 13, the tree: one Query of
//! the partition): its name and its parent. Every category is in the one partition, beside the
//! tree's version (`category_tree`), so the whole tree is read, checked and written as one.

use crate::domain::category::Category;
use crate::domain::ids::CategoryId;
use crate::dynamo::codec::{BadItem, Item, SK, primary_key};
use crate::dynamo::keys::{self, CATEGORIES_PK, CATEGORY_PREFIX, Entity, MalformedKey, malformed};
use crate::dynamo::record::record;
use crate::dynamo::update::PutSpec;

record! {
    /// What a category's item stores of it.
    pub Record stores Category beside (category_id: CategoryId) {
        /// What the storefront calls it.
        name: String = NAME "name", required, store;
        /// The category it is under (absent: a root).
        parent_id: CategoryId = PARENT_ID "parentId", optional, store;
    }
}

/// What writing a category puts: the item whole.
pub const PUT: PutSpec = PutSpec {
    entity: Entity::Category,
    attributes: &[keys::PK, keys::SK, NAME.name, PARENT_ID.name],
};

/// The partition key of every category.
pub fn pk() -> String {
    CATEGORIES_PK.to_owned()
}

/// The category's sort key.
pub fn sk(id: &CategoryId) -> String {
    format!("{CATEGORY_PREFIX}{id}")
}

/// The category a sort key names.
pub fn parse_sk(sk: &str) -> Result<CategoryId, MalformedKey> {
    sk.strip_prefix(CATEGORY_PREFIX)
        .and_then(|raw| CategoryId::parse(raw).ok())
        .ok_or_else(|| malformed(keys::SK, sk))
}

/// The category's key.
pub fn key(id: &CategoryId) -> Item {
    primary_key(pk(), sk(id))
}

/// The category's item.
pub fn to_item(category: &Category) -> Item {
    let mut item = key(&category.category_id);
    Record::write(&mut item, category);
    item
}

/// The category an item holds.
pub fn from_item(mut item: Item) -> Result<Category, BadItem> {
    let id = parse_sk(&SK.take(&mut item)?)?;
    Record::read(&mut item, id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamo::entities::test_support::{pairs, shape};

    #[test]
    fn a_category_sits_in_the_trees_partition_and_reads_back() {
        let coffee = Category {
            category_id: CategoryId::parse("coffee").expect("id"),
            name: "Coffee".into(),
            parent_id: Some(CategoryId::parse("kitchen").expect("id")),
        };
        let item = to_item(&coffee);
        assert_eq!(
            shape(&item),
            pairs(&[
                ("PK", "S CATEGORIES"),
                ("SK", "S CATEGORY#coffee"),
                ("name", "S Coffee"),
                ("parentId", "S kitchen"),
            ])
        );
        assert_eq!(from_item(item).expect("reads"), coffee);
    }
}
