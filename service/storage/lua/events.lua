-- Read a page of a table's event log with what a stream needs beside it,
-- in one atomic step: table_page (page.lua, prepended) from ARGV[1].
--
-- KEYS[1] the table hash; KEYS[2] the event list; KEYS[3] the choices hash.
-- ARGV[1] after: the page holds the events with seq > after
-- ARGV[2] limit: at most this many (one more is read, to tell whether more follow)
-- Returns table_page's reply.
return table_page(KEYS[1], KEYS[2], KEYS[3], tonumber(ARGV[1]), tonumber(ARGV[2]))
