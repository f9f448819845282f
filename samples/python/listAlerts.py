# GET /alerts: Your account's price alerts, with their state, oldest first (operationId listAlerts).
# The Python client: pip install ./clients/python (from a checkout of cardcat). The key is read from CARDCAT_API_KEY.
import os

import cardcat

client = cardcat.Client(base_url=os.environ.get("CARDCAT_URL", "http://localhost:8080"))

page = 1
while True:
    answer = client.list_alerts(page=page, limit=100)  # limit up to 1000
    if page == 1:
        print(answer["pagination"]["total"], "alerts")
    for alert in answer["alerts"]:
        if alert["rule"] == "move":
            rule = f"move {alert['percent']}%"
        else:
            rule = f"{alert['rule']} {alert['threshold']:.2f} {alert['currency']}"
        state = "paused" if alert["paused"] else "armed" if alert["armed"] else "fired"
        if alert["email"]:
            state += ", emails"
        print(alert["id"], alert["card_id"], alert["source"], alert["variant"], rule, state)
    if page >= answer["pagination"]["total_pages"]:
        break
    page += 1
