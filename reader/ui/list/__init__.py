"""The paper list screen: the table and its model and columns, the search bar, the sidebar of views,
and what an empty list shows."""
