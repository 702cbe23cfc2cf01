import { useEffect, useState } from 'react';

export default function EventList() {
  const [events, setEvents] = useState([]);
  const [error, setError] = useState('');

  useEffect(() => {
    const load = async () => {
      try {
        const response = await fetch('/api/events?upcoming=true');
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        setEvents(await response.json());
      } catch (err) {
        setError('Failed to load events');
      }
    };
    load();
  }, []);

  return (
    <section>
      <h2>Upcoming events</h2>
      {error && <p>{error}</p>}
      <ul>
        {events.map((event) => (
          <li key={event.id} data-testid={`event-${event.id}`}>
            <strong>{event.name}</strong> <time dateTime={event.date}>{event.date}</time>
          </li>
        ))}
      </ul>
    </section>
  );
}
