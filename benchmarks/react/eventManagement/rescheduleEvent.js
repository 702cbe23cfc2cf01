import { useState } from 'react';

export default function RescheduleEvent() {
  const [date, setDate] = useState('');
  const [message, setMessage] = useState('');

  const reschedule = async () => {
    try {
      const response = await fetch('/api/events/e5', {
        method: 'PATCH',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ date }),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const updated = await response.json();
      setMessage(`Event moved to ${updated.date}`);
    } catch (err) {
      setMessage('Could not reschedule event');
    }
  };

  return (
    <div>
      <input type="date" data-testid="new-date" value={date} onChange={(e) => setDate(e.target.value)} />
      <button onClick={reschedule}>Reschedule</button>
      {message && <p>{message}</p>}
    </div>
  );
}
