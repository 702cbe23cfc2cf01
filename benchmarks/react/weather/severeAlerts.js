import { useEffect, useState } from 'react';

export default function SevereAlerts() {
  const [alerts, setAlerts] = useState([]);
  const [unavailable, setUnavailable] = useState(false);

  useEffect(() => {
    fetch('/api/alerts')
      .then((response) => {
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        return response.json();
      })
      .then((data) => setAlerts(data))
      .catch(() => setUnavailable(true));
  }, []);

  return (
    <section>
      <h2>Severe weather alerts</h2>
      {unavailable && <p>Alerts unavailable</p>}
      <ul>
        {alerts.map((alert) => (
          <li key={alert.id} className={`alert-${alert.severity}`}>{alert.headline}</li>
        ))}
      </ul>
    </section>
  );
}
