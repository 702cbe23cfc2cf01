import { useState } from 'react';

export default function CancelBooking() {
  const [status, setStatus] = useState('');
  const [error, setError] = useState('');

  const cancel = async () => {
    setError('');
    try {
      const response = await fetch('/api/bookings/B77', { method: 'DELETE' });
      if (!response.ok) {
        const data = await response.json().catch(() => ({}));
        setError(data.error || 'Cancellation failed');
        return;
      }
      setStatus('Booking cancelled');
    } catch (err) {
      setError('Cancellation failed');
    }
  };

  return (
    <div>
      <p>Booking B77</p>
      <button data-testid="cancel-booking" onClick={cancel}>Cancel booking</button>
      {status && <p>{status}</p>}
      {error && <p className="error">{error}</p>}
    </div>
  );
}
