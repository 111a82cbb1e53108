from crawler.crawl import CrawlResult, crawl, format_summary  # noqa: F401  TEMP
