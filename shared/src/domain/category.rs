//! Categories: the tree a storefront lists products by. Each category has a name and at most
//! one parent; the tree has no cycles and at most [`MAX_DEPTH`] levels, and at most
//! [`MAX_CATEGORIES`] categories (the whole tree is read in one Query). A published product is
//! listed in each of its categories, by price and by newest.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::AppError;
use crate::domain::ids::CategoryId;

/// The most levels the tree has: a root is level 1.
pub const MAX_DEPTH: usize = 4;
/// The most categories the store keeps: the tree is one partition read in one Query.
pub const MAX_CATEGORIES: usize = 500;

/// One category.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Category {
    /// Which category.
    pub category_id: CategoryId,
    /// What the storefront calls it.
    pub name: String,
    /// The category it is under (none: a root).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<CategoryId>,
}

/// A category with the categories under it, by name: `GET /categories`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CategoryNode {
    /// Which category.
    pub category_id: CategoryId,
    /// What the storefront calls it.
    pub name: String,
    /// The categories under it, by name.
    pub children: Vec<CategoryNode>,
}

/// How a category's products are listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListingSort {
    /// The most recently created first.
    Newest,
    /// The lowest price first.
    PriceAscending,
    /// The highest price first.
    PriceDescending,
}

impl ListingSort {
    /// From `sort=` (`newest`, the default, `price-asc`, `price-desc`).
    pub fn parse(raw: Option<&str>) -> Result<Self, AppError> {
        match raw {
            None | Some("newest") => Ok(ListingSort::Newest),
            Some("price-asc") => Ok(ListingSort::PriceAscending),
            Some("price-desc") => Ok(ListingSort::PriceDescending),
            Some(other) => Err(AppError::invalid(format!(
                "sort must be newest, price-asc or price-desc, not {:?}",
                other.escape_default().to_string()
            ))),
        }
    }
}

/// The levels from `id` up to its root (1: a root), through `parents`; `None` on a cycle.
fn depth(id: &CategoryId, parents: &HashMap<&CategoryId, Option<&CategoryId>>) -> Option<usize> {
    let mut at = id;
    for level in 1..=parents.len() + 1 {
        match parents.get(at).copied().flatten() {
            Some(parent) => at = parent,
            None => return Some(level),
        }
    }
    None
}

/// `tree` with `placed` written into it (new, renamed or moved), checked: its parent exists and
/// is not itself or under it (no cycle), no branch is deeper than [`MAX_DEPTH`], and the tree
/// holds at most [`MAX_CATEGORIES`].
pub fn place(tree: &[Category], placed: &Category) -> Result<(), AppError> {
    let mut all: Vec<&Category> = tree
        .iter()
        .filter(|c| c.category_id != placed.category_id)
        .collect();
    all.push(placed);
    if all.len() > MAX_CATEGORIES {
        return Err(AppError::CapReached(format!(
            "the store keeps at most {MAX_CATEGORIES} categories"
        )));
    }
    let parents: HashMap<&CategoryId, Option<&CategoryId>> = all
        .iter()
        .map(|c| (&c.category_id, c.parent_id.as_ref()))
        .collect();
    if let Some(parent) = &placed.parent_id
        && (!parents.contains_key(parent) || parent == &placed.category_id)
    {
        return Err(AppError::invalid(format!(
            "parentId {parent} is no other category"
        )));
    }
    for category in &all {
        match depth(&category.category_id, &parents) {
            None => {
                return Err(AppError::invalid(format!(
                    "category {} cannot be under {}: it is above it",
                    placed.category_id,
                    placed.parent_id.as_ref().map_or("", CategoryId::as_str)
                )));
            }
            Some(levels) if levels > MAX_DEPTH => {
                return Err(AppError::invalid(format!(
                    "the tree of categories is at most {MAX_DEPTH} levels deep"
                )));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// The categories as a tree: the roots, each with its children, by name (then ID).
pub fn tree(categories: &[Category]) -> Vec<CategoryNode> {
    let mut children: BTreeMap<Option<&CategoryId>, Vec<&Category>> = BTreeMap::new();
    for category in categories {
        children
            .entry(category.parent_id.as_ref())
            .or_default()
            .push(category);
    }
    fn nodes(
        parent: Option<&CategoryId>,
        children: &BTreeMap<Option<&CategoryId>, Vec<&Category>>,
    ) -> Vec<CategoryNode> {
        let mut under: Vec<&Category> = children.get(&parent).cloned().unwrap_or_default();
        under.sort_by(|a, b| (&a.name, &a.category_id).cmp(&(&b.name, &b.category_id)));
        under
            .into_iter()
            .map(|c| CategoryNode {
                category_id: c.category_id.clone(),
                name: c.name.clone(),
                children: nodes(Some(&c.category_id), children),
            })
            .collect()
    }
    nodes(None, &children)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn category(id: &str, parent: Option<&str>) -> Category {
        Category {
            category_id: CategoryId::parse(id).expect("id"),
            name: id.to_uppercase(),
            parent_id: parent.map(|p| CategoryId::parse(p).expect("id")),
        }
    }

    #[test]
    fn a_category_goes_under_another_never_under_itself_and_never_too_deep() {
        let tree = vec![
            category("home", None),
            category("kitchen", Some("home")),
            category("coffee", Some("kitchen")),
        ];
        assert!(place(&tree, &category("grinders", Some("coffee"))).is_ok());
        assert!(place(&tree, &category("garden", None)).is_ok());
        // Five levels.
        let deeper = [tree.clone(), vec![category("grinders", Some("coffee"))]].concat();
        assert!(place(&deeper, &category("burrs", Some("grinders"))).is_err());
        // A cycle: home under coffee, which is under home.
        assert!(place(&tree, &category("home", Some("coffee"))).is_err());
        assert!(place(&tree, &category("home", Some("home"))).is_err());
        assert!(place(&tree, &category("tea", Some("nowhere"))).is_err());
        // Moving kitchen (with coffee under it) under a branch two deep makes four: fine; three
        // deep, five: refused.
        let wide = [
            tree.clone(),
            vec![category("b", Some("home")), category("c", Some("b"))],
        ]
        .concat();
        assert!(place(&wide, &category("kitchen", Some("b"))).is_ok());
        assert!(place(&wide, &category("kitchen", Some("c"))).is_err());
    }

    #[test]
    fn the_tree_is_its_roots_with_their_children_by_name() {
        let tree = tree(&[
            category("kitchen", Some("home")),
            category("home", None),
            category("garden", None),
            category("bath", Some("home")),
        ]);
        let names: Vec<(&str, Vec<&str>)> = tree
            .iter()
            .map(|n| {
                (
                    n.category_id.as_str(),
                    n.children.iter().map(|c| c.category_id.as_str()).collect(),
                )
            })
            .collect();
        assert_eq!(
            names,
            [("garden", vec![]), ("home", vec!["bath", "kitchen"])]
        );
    }
}
