"""A sixth game added by the recipe of docs/api.md, in a copy of the repository."""
