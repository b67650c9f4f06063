"""My Ship Sails' own endpoints (passes, claims) and their schemas."""
