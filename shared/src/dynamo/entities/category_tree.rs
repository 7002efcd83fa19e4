//! The category tree's version, `CATEGORIES` / `VERSION`: moved on by every category written,
//! on the condition that it is the one read with the tree, so that two writes at once cannot
//! make a cycle or a branch too deep between them (each checked the tree the other changed).

use crate::dynamo::codec::{Attr, Item, primary_key};
use crate::dynamo::keys::{CATEGORIES_PK, Entity, TREE_VERSION_SK};
use crate::dynamo::update::UpdateSpec;

/// How many times the tree was written.
pub const VERSION: Attr<u64> = Attr::new("version");

/// What writing a category moves on.
pub const MOVE_ON: UpdateSpec = UpdateSpec {
    set: &[VERSION.name],
    ..UpdateSpec::of(Entity::CategoryTree)
};

/// The version's sort key.
pub const SORT_KEY: &str = TREE_VERSION_SK;

/// The version's key.
pub fn key() -> Item {
    primary_key(CATEGORIES_PK.to_owned(), SORT_KEY)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_sits_after_the_categories() {
        assert_eq!(SORT_KEY, "VERSION");
        assert!(SORT_KEY > "CATEGORY$", "outside every CATEGORY# key");
    }
}
