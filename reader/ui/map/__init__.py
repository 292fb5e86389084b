"""The map screen: the library laid out as points, its rendering, tools and page controller."""
