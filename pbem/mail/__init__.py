"""Mail in and out."""
